// How a worker ends a job on PostgreSQL: one statement whose UPDATE matches only while the worker
// still holds the lease, and whose tail writes the event and the change notice. A refused write (the
// lease was lost) matches no row, and so writes no event either.
import { type Kysely, sql } from 'kysely';
import { eventTypeFor } from '../../model/job-event.js';
import type { JobEnding } from '../sql/dialect.js';
import type { Transition } from '../sql/queued-messages.js';
import type { JobRow, Tables } from '../sql/rows.js';
import { noticesRead, outboxTail, scrubbedOptions } from './outbox.js';

export async function finishLeased(
  db: Kysely<Tables>,
  origin: string,
  id: string,
  token: string,
  ending: JobEnding,
  now: number,
): Promise<Transition<JobRow | undefined>> {
  const outcome =
    ending.status === 'succeeded'
      ? sql`status = 'succeeded', progress = 100, result = ${JSON.stringify(ending.result)},
            expires_at = ${ending.expiresAt}::bigint`
      : sql`status = 'failed', error = ${JSON.stringify(ending.error)}`;
  // A row of nulls (id null) when the lease was lost: the LEFT JOIN keeps the notices' column.
  const { rows } = await sql<{ [K in keyof JobRow]: JobRow[K] | null } & { queued: number }>`
    WITH ended AS (
      UPDATE jobs SET ${outcome}, completed_at = ${now}::bigint,
        -- No password outlives the job that needed it (docs/api.md §2).
        options = ${scrubbedOptions(sql.ref('options'), sql.ref('secret_options'))},
        lease_token = NULL, lease_expires_at = NULL, worker_id = NULL
      WHERE id = ${id} AND lease_token = ${token} AND status = 'processing'
      RETURNING jobs.*
    ),
    ${outboxTail({ source: 'ended', type: eventTypeFor(ending.status), now, origin, notice: 'terminal' })}
    SELECT e.*, ${noticesRead} FROM (SELECT 1) AS one LEFT JOIN ended e ON true`.execute(db);
  const row = rows[0];
  if (!row || row.id === null) return { value: undefined, queued: false };
  const { queued, ...ended } = row;
  return { value: ended as JobRow, queued: Number(queued) > 0 };
}
