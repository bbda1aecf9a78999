// How a worker ends a job on PostgreSQL: one statement whose UPDATE matches only while the worker
// still holds the lease, and whose tail writes the event and the change notice. A refused write (the
// lease was lost) matches no row, and so writes no event either.
import { type Kysely, sql } from 'kysely';
import { eventTypeFor } from '../../model/job-event.js';
import type { JobEnding } from '../sql/dialect.js';
import type { Transition } from '../sql/queued-messages.js';
import type { Tables } from '../sql/rows.js';
import { noticesRead, outboxTail, scrubbedOptions } from './outbox.js';

export async function finishLeased(
  db: Kysely<Tables>,
  origin: string,
  id: string,
  token: string,
  ending: JobEnding,
  now: number,
): Promise<Transition<boolean>> {
  const outcome =
    ending.status === 'succeeded'
      ? sql`status = 'succeeded', progress = 100, result = ${JSON.stringify(ending.result)},
            expires_at = ${ending.expiresAt}::bigint`
      : sql`status = 'failed', error = ${JSON.stringify(ending.error)}`;
  const { rows } = await sql<{ ended: number; queued: number }>`
    WITH ended AS (
      UPDATE jobs SET ${outcome}, completed_at = ${now}::bigint,
        -- No password outlives the job that needed it (docs/api.md §2).
        options = ${scrubbedOptions(sql.ref('options'), sql.ref('secret_options'))},
        lease_token = NULL, lease_expires_at = NULL, worker_id = NULL
      WHERE id = ${id} AND lease_token = ${token} AND status = 'processing'
      RETURNING jobs.*
    ),
    ${outboxTail({ source: 'ended', type: eventTypeFor(ending.status), now, origin, notice: 'terminal' })}
    SELECT (SELECT count(*) FROM ended) AS ended, ${noticesRead}`.execute(db);
  return { value: Number(rows[0]?.ended) > 0, queued: Number(rows[0]?.queued) > 0 };
}
