// The job events webhook messages are made from: read back per job, and pruned once old and no
// longer being delivered.
import { type Kysely, sql } from 'kysely';
import type { JobEventRecord } from '../../model/job-event.js';
import { eventBodyOf } from './job-outbox.js';
import type { Tables } from './tables.js';

export async function listJobEvents(db: Kysely<Tables>, jobId: string): Promise<JobEventRecord[]> {
  const rows = await db
    .selectFrom('webhook_events')
    .selectAll()
    .where('job_id', '=', jobId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    type: r.type,
    jobId: r.job_id,
    accountId: r.account_id,
    body: eventBodyOf(r),
    createdAt: r.created_at,
  }));
}

export async function pruneEvents(db: Kysely<Tables>, before: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_events')
    .where('created_at', '<', before)
    // An event whose delivery is still being retried stays, whatever its age; its messages and
    // their attempts go with it (ON DELETE CASCADE) once none is pending.
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_messages as m')
            .select(sql.lit(1).as('one'))
            .whereRef('m.event_id', '=', 'webhook_events.id')
            .where('m.status', '=', 'pending'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
