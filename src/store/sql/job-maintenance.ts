// Background upkeep of the jobs table: the expired-lease sweep and the retention queues the cleaner
// drains (inputs of ended jobs, expired or deleted results), plus the counts behind queue metrics.
import { type Kysely, sql } from 'kysely';
import { errorCatalogue } from '../../errors/catalogue.js';
import type { JobError, JobRecord, JobStatus } from '../../model/job.js';
import { scrubSecretOptions } from '../../model/redact.js';
import type { SweepOutcome } from '../types.js';
import type { SqlDialect } from './dialect.js';
import { noLease, toJob } from './job-rows.js';
import type { QueuedMessages } from './queued-messages.js';
import type { Tables } from './tables.js';

const workerLost: JobError = {
  code: 'worker_lost',
  message: errorCatalogue.worker_lost.title,
  retryable: errorCatalogue.worker_lost.retryable,
};

/**
 * Each expired lease is acted on with an UPDATE that repeats the observed token and the expiry test:
 * a worker that renewed, finished or was canceled after our read changes the token or the expiry, so
 * the write matches nothing and its job is left alone (BullMQ's stalled check, in one statement).
 * Two sweepers racing are harmless for the same reason: the first clears the token.
 */
export async function sweepExpiredLeases(
  db: Kysely<Tables>,
  dialect: SqlDialect,
  maxStalls: number,
  now: number,
  messages: QueuedMessages,
): Promise<SweepOutcome> {
  const expired = await db
    .selectFrom('jobs')
    .select(['id', 'lease_token', 'stalls', 'options', 'secret_options'])
    // Literal status so the partial jobs_lease_expiry index applies.
    .where('status', '=', sql.lit('processing'))
    .where('lease_expires_at', '<', now)
    .orderBy('lease_expires_at')
    .execute();
  const outcome: SweepOutcome = { requeued: [], failed: [] };
  for (const job of expired) {
    if (job.lease_token === null) continue;
    const stalls = job.stalls + 1;
    const giveUp = stalls >= maxStalls;
    const options = giveUp
      ? JSON.stringify(scrubSecretOptions(JSON.parse(job.options), JSON.parse(job.secret_options)))
      : job.options;
    // Each job in its own write transaction, so a worker_lost failure and its job.failed event
    // commit together; a requeue is not an event.
    const changed = await dialect.transaction(db, async (conn) => {
      const row = await conn
        .updateTable('jobs')
        .set(
          giveUp
            ? {
                status: 'failed',
                error: JSON.stringify(workerLost),
                completed_at: now,
                stalls,
                options,
                ...noLease,
              }
            : { status: 'queued', stalls, ...noLease },
        )
        .where('id', '=', job.id)
        .where('lease_token', '=', job.lease_token)
        .where('status', '=', 'processing')
        .where('lease_expires_at', '<', now)
        .returningAll()
        .executeTakeFirst();
      if (!row) return { value: false, queued: false };
      // A requeue writes no event, but idle workers elsewhere should hear of the job.
      if (giveUp) return { value: true, queued: await dialect.appendJobEvent(conn, row, now) };
      await dialect.notify(conn, { jobId: job.id, kind: 'created' });
      return { value: true, queued: false };
    });
    if (messages.settle(changed)) (giveUp ? outcome.failed : outcome.requeued).push(job.id);
  }
  // A job failed as worker_lost had its secrets scrubbed like any other end.
  if (outcome.failed.length > 0) await dialect.forgetOverwritten(db);
  return outcome;
}

export async function listEndedWithInputs(db: Kysely<Tables>, limit: number): Promise<JobRecord[]> {
  const rows = await db
    .selectFrom('jobs')
    .selectAll()
    // Spelled exactly as the partial jobs_inputs_pending index so SQLite can use it.
    .where(sql<boolean>`inputs_deleted_at IS NULL AND status IN ('succeeded', 'failed', 'canceled')`)
    .orderBy('completed_at')
    .limit(limit)
    .execute();
  return rows.map(toJob);
}

/** True when it cleared URLs (secrets the caller then makes the database forget). */
export async function markInputsDeleted(db: Kysely<Tables>, id: string, now: number): Promise<boolean> {
  const withUrls = await db
    .selectFrom('jobs')
    .select('id')
    .where('id', '=', id)
    .where('inputs_deleted_at', 'is', null)
    .where((eb) => eb.or([eb('transfer_secrets', 'is not', null), eb('webhook_url', 'is not', null)]))
    .executeTakeFirst();
  await db
    .updateTable('jobs')
    // Import and export URLs and the job's webhook URL go with the inputs: by now the terminal event
    // (and any callback message, which keeps its own copy of the URL until delivered) is written
    // (docs/api.md §2).
    .set({ inputs_deleted_at: now, transfer_secrets: null, webhook_url: null })
    .where('id', '=', id)
    .where('inputs_deleted_at', 'is', null)
    .execute();
  return withUrls !== undefined;
}

/** Results of deleted jobs first (the client asked for them gone), then those past retention. */
export async function listExpiredResults(
  db: Kysely<Tables>,
  limit: number,
  now: number,
): Promise<JobRecord[]> {
  const deleted = await db
    .selectFrom('jobs')
    .selectAll()
    .where(sql<boolean>`deleted_at IS NOT NULL AND result IS NOT NULL AND result_deleted_at IS NULL`)
    .orderBy('deleted_at')
    .limit(limit)
    .execute();
  if (deleted.length >= limit) return deleted.map(toJob);
  const expired = await db
    .selectFrom('jobs')
    .selectAll()
    .where(sql<boolean>`status = 'succeeded' AND result_deleted_at IS NULL`)
    .where('expires_at', '<', now)
    // Deleted ones were listed above.
    .where('deleted_at', 'is', null)
    .orderBy('expires_at')
    .limit(limit - deleted.length)
    .execute();
  return [...deleted, ...expired].map(toJob);
}

export async function markResultDeleted(db: Kysely<Tables>, id: string, now: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ result_deleted_at: now })
    .where('id', '=', id)
    .where('result_deleted_at', 'is', null)
    .execute();
}

/**
 * Counts every row, deleted ones included: deleting cancels first, so deleted jobs are always
 * terminal and the queued and processing counts (the ones alerts watch) are exact. Not filtering
 * lets SQLite count from a covering index instead of reading every wide row.
 */
export async function countJobsByStatus(db: Kysely<Tables>): Promise<Record<JobStatus, number>> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => ['status', eb.fn.countAll<number>().as('count')])
    .groupBy('status')
    .execute();
  const counts: Record<JobStatus, number> = {
    queued: 0,
    processing: 0,
    succeeded: 0,
    failed: 0,
    canceled: 0,
  };
  for (const row of rows) counts[row.status] = Number(row.count);
  return counts;
}
