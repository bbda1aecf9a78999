// How a worker ends a job on PostgreSQL: one statement whose UPDATE matches only while the worker
// still holds the lease, and whose tail writes the event and the change notice. A refused write (the
// lease was lost) matches no row, and so writes no event either. Compiled once per ending
// (bound-statements.ts): a completion is as hot as a claim.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { eventTypeFor } from '../../model/job-event.js';
import type { JobEnding } from '../sql/dialect.js';
import type { JobRow } from '../sql/job-rows.js';
import type { Transition } from '../sql/queued-messages.js';
import type { Tables } from '../sql/tables.js';
import { BoundStatements, type SlotOf } from './bound-statements.js';
import { noticesRead, outboxTail, scrubbedOptions } from './outbox.js';

/** The values bound per call; `outcome` is the result or the error as JSON, by the ending. */
interface Finish {
  id: string;
  token: string;
  now: number;
  origin: string;
  outcome: string;
  /** The result's size (result_bytes, which the account's storage quota sums); 0 on failure. */
  resultBytes: number;
  expiresAt: number | null;
}

/** A row of nulls (id null) when the lease was lost: the LEFT JOIN keeps the notices' column. */
type FinishRow = { [K in keyof JobRow]: JobRow[K] | null } & { queued: number };

function finishStatement(finish: SlotOf<Finish>, status: JobEnding['status']): RawBuilder<FinishRow> {
  const now = finish('now');
  const outcome =
    status === 'succeeded'
      ? sql`status = 'succeeded', progress = 100, result = ${finish('outcome')},
            result_bytes = ${finish('resultBytes')}::bigint, expires_at = ${finish('expiresAt')}::bigint`
      : sql`status = 'failed', error = ${finish('outcome')}`;
  return sql<FinishRow>`
    WITH ended AS (
      UPDATE jobs SET ${outcome}, completed_at = ${now}::bigint,
        -- No password outlives the job that needed it (docs/api.md §2).
        options = ${scrubbedOptions(sql.ref('options'), sql.ref('secret_options'))},
        lease_token = NULL, lease_expires_at = NULL, worker_id = NULL
      WHERE id = ${finish('id')} AND lease_token = ${finish('token')} AND status = 'processing'
      RETURNING jobs.*
    ),
    ${outboxTail({ source: 'ended', type: eventTypeFor(status), now, origin: finish('origin'), notice: 'terminal' })}
    SELECT e.*, ${noticesRead} FROM (SELECT 1) AS one LEFT JOIN ended e ON true`;
}

const finishes = new BoundStatements(finishStatement);

export async function finishLeased(
  db: Kysely<Tables>,
  origin: string,
  id: string,
  token: string,
  ending: JobEnding,
  now: number,
): Promise<Transition<JobRow | undefined>> {
  const succeeded = ending.status === 'succeeded';
  const [row] = await finishes.execute(db, ending.status, {
    id,
    token,
    now,
    origin,
    outcome: JSON.stringify(succeeded ? ending.result : ending.error),
    resultBytes: succeeded ? ending.result.size : 0,
    expiresAt: succeeded ? ending.expiresAt : null,
  });
  if (!row || row.id === null) return { value: undefined, queued: false };
  const { queued, ...ended } = row;
  return { value: ended as JobRow, queued: Number(queued) > 0 };
}
