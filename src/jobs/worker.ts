// The worker pool: N slots claim jobs from the SQL queue, run them under a kept lease, and sleep
// until woken (in-process) or the poll interval passes (jobs created by other processes).
import os from 'node:os';
import { ulid } from 'ulid';
import type { ClaimedJob } from '../store/types.js';
import { LeaseKeeper } from './lease-keeper.js';
import { type RunJobDeps, runJob } from './run-job.js';

export interface Workers {
  /** Stops claiming, aborts running engines, gives their jobs back to the queue and waits. */
  stop(): Promise<void>;
  readonly id: string;
}

export function startWorkers(deps: RunJobDeps): Workers {
  const id = `wrk_${os.hostname()}_${process.pid}_${ulid().slice(-6)}`;
  const { concurrency, pollMs, leaseMs } = deps.config.worker;
  const keeper = new LeaseKeeper(deps.jobs, deps.events, leaseMs, deps.logger);
  let stopped = false;
  const sleepers = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of [...sleepers]) wake();
  };
  const offCreated = deps.events.onAny((change) => {
    if (change.kind === 'created') wakeAll();
  });

  const idle = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, pollMs);
      sleepers.add(done);
    });

  const slot = async () => {
    while (!stopped) {
      let claim: ClaimedJob | undefined;
      try {
        claim = await deps.jobs.claimNext(id, leaseMs);
      } catch (error) {
        deps.logger.error(
          { err: { type: (error as Error).name, stack: (error as Error).stack } },
          'claim failed',
        );
      }
      if (!claim) {
        await idle();
        continue;
      }
      deps.events.emit({ jobId: claim.job.id, kind: 'updated' });
      const signal = keeper.hold(claim.job.id, claim.leaseToken);
      try {
        await runJob(claim, signal, deps);
      } catch (error) {
        deps.logger.error(
          { job: claim.job.id, err: { type: (error as Error).name, stack: (error as Error).stack } },
          'job runner crashed',
        );
      } finally {
        keeper.release(claim.job.id);
        // Stopping in order: hand the job straight back instead of letting its lease lapse,
        // which would delay it and count a stall towards worker_lost.
        if (stopped) await deps.jobs.release(claim.job.id, claim.leaseToken).catch(() => false);
      }
    }
  };

  const slots = Array.from({ length: concurrency }, () => slot());
  deps.logger.info({ worker: id, concurrency }, 'workers started');

  return {
    id,
    async stop() {
      stopped = true;
      offCreated();
      wakeAll();
      keeper.stop();
      await Promise.allSettled(slots);
    },
  };
}
