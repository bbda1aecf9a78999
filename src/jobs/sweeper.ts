// Periodic housekeeping: requeue expired leases (fail after too many stalls), delete inputs of ended
// jobs and results past retention, job records past theirs, and expired resumable uploads. Idempotent, so any number of processes may run it at once.

import type { Logger } from '../observability/logger.js';
import { removeStaleWorkDirs } from '../process/work-dir.js';
import type { IdempotencyStore, RateLimiter } from '../store/types.js';
import type { Services } from './services.js';

export interface SweeperDeps {
  /** The job service makes every job change of a sweep. */
  services: Pick<Services, 'jobs'>;
  logger: Logger;
  intervalMs: number;
  maxStalls: number;
  /** Idempotency keys past retention and full rate-limit buckets are deleted when given. */
  idempotency?: IdempotencyStore;
  rateLimits?: RateLimiter;
  /** Resumable uploads past their expiry lose their bytes (disk or bucket) and rows when given. */
  uploads?: { sweepExpired(): Promise<number> };
  /** Job records ended longer ago than this go with their files (QUIRE_JOB_RECORD_RETENTION_MS). */
  recordRetentionMs?: number;
  /** Where workers make their private work dirs, and the age after which a leftover is removed. */
  workDirs?: { parent: string; staleAfterMs: number };
}

const BATCH = 100;

export async function sweepOnce(deps: SweeperDeps): Promise<void> {
  const service = deps.services.jobs;
  const { requeued, failed } = await service.sweepExpiredLeases(deps.maxStalls);
  for (const id of requeued) deps.logger.warn({ job: id }, 'lease expired; job requeued');
  for (const id of failed)
    deps.logger.error({ job: id, code: 'worker_lost' }, 'job failed after repeated stalls');
  await service.purgeFiles(BATCH);
  if (deps.recordRetentionMs !== undefined) {
    const purged = await service.purgeRecords(Date.now() - deps.recordRetentionMs, BATCH);
    if (purged > 0) deps.logger.info({ purged }, 'deleted job records past retention');
  }
  await deps.idempotency?.prune();
  await deps.rateLimits?.prune();
  const expired = (await deps.uploads?.sweepExpired()) ?? 0;
  if (expired > 0) deps.logger.info({ expired }, 'deleted expired uploads');
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
