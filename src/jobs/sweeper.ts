// Periodic housekeeping: requeue expired leases (fail after too many stalls), delete inputs of ended
// jobs and results past retention. Idempotent, so any number of processes may run it at once.

import { jobFolder } from '../blobs/keys.js';
import type { BlobStore } from '../blobs/types.js';
import type { JobEvents } from '../model/job-change.js';
import type { Logger } from '../observability/logger.js';
import { removeStaleWorkDirs } from '../process/work-dir.js';
import type { IdempotencyStore, JobStore, RateLimiter } from '../store/types.js';

export interface SweeperDeps {
  jobs: JobStore;
  blobs: BlobStore;
  events: JobEvents;
  logger: Logger;
  intervalMs: number;
  maxStalls: number;
  /** Idempotency keys past retention and full rate-limit buckets are deleted when given. */
  idempotency?: IdempotencyStore;
  rateLimits?: RateLimiter;
  /** Where workers make their private work dirs, and the age after which a leftover is removed. */
  workDirs?: { parent: string; staleAfterMs: number };
}

const BATCH = 100;

export async function sweepOnce(deps: SweeperDeps): Promise<void> {
  const { requeued, failed } = await deps.jobs.sweepExpiredLeases(deps.maxStalls);
  for (const id of requeued) {
    deps.logger.warn({ job: id }, 'lease expired; job requeued');
    // 'created' wakes idle workers in this process to claim it again.
    deps.events.emit({ jobId: id, kind: 'created' });
  }
  for (const id of failed) {
    deps.logger.error({ job: id, code: 'worker_lost' }, 'job failed after repeated stalls');
    deps.events.emit({ jobId: id, kind: 'terminal' });
  }
  for (const job of await deps.jobs.listEndedWithInputs(BATCH)) {
    // Without a result to keep, the job's whole folder goes: inputs and anything an attempt that
    // lost its lease uploaded (a worker killed between its upload and its write leaves one).
    if (job.result) await Promise.all(job.inputs.map((f) => deps.blobs.delete(f.blobKey)));
    else await deps.blobs.deletePrefix(jobFolder(job.id));
    await deps.jobs.markInputsDeleted(job.id);
  }
  for (const job of await deps.jobs.listExpiredResults(BATCH)) {
    await deps.blobs.deletePrefix(jobFolder(job.id));
    await deps.jobs.markResultDeleted(job.id);
  }
  await deps.idempotency?.prune();
  await deps.rateLimits?.prune();
  if (deps.workDirs) {
    const removed = await removeStaleWorkDirs(deps.workDirs.parent, deps.workDirs.staleAfterMs);
    if (removed > 0) deps.logger.warn({ removed }, 'removed work dirs left by killed workers');
  }
}

export function startSweeper(deps: SweeperDeps): { stop(): void } {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await sweepOnce(deps);
    } catch (error) {
      deps.logger.error(
        { err: { type: (error as Error).name, stack: (error as Error).stack } },
        'sweep failed',
      );
    } finally {
      running = false;
    }
  }, deps.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
