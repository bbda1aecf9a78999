// The worker pool: N slots claim jobs from the SQL queue, run them under a kept lease, and sleep
// until woken (in-process) or the poll interval passes (jobs created by other processes).
import os from 'node:os';
import type { Config } from '../config/config.js';
import { accountLimits, FALLBACK_PLAN, planFor } from '../config/plans.js';
import { ulid } from '../model/ulid.js';
import { IdleWaiters } from '../process/idle-waiters.js';
import type { ClaimedJob, ClaimLimits } from '../store/types.js';
import type { ToolCatalog } from '../tools/lib/catalog.js';
import { jobStarted } from '../tools/lib/cpu-share.js';
import { JobService } from './job-service.js';
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
  const limits = claimLimits(deps.config, deps.catalog);
  const service = new JobService(deps);
  let stopped = false;
  const waiters = new IdleWaiters(pollMs);
  const wakeAll = () => waiters.wakeAll();
  /** Jobs announced so far (created or requeued, here or by a notice from another process). */
  let announced = 0;
  const offCreated = deps.events.onAny((change) => {
    if (change.kind !== 'created') return;
    announced++;
    waiters.wakeOne();
  });

  const slot = async () => {
    // Whether work is known to wait: a notice woke this slot, or its last claim left more queued.
    let expectWork = false;
    while (!stopped) {
      let claim: ClaimedJob | undefined;
      try {
        claim = await service.claim(id, leaseMs, limits, expectWork);
      } catch (error) {
        deps.logger.error(
          { err: { type: (error as Error).name, stack: (error as Error).stack } },
          'claim failed',
        );
      }
      if (!claim) {
        expectWork = await waiters.idle();
        continue;
      }
      const announcedBefore = announced;
      const signal = keeper.hold(claim.job.id, claim.leaseToken);
      const leave = jobStarted();
      try {
        await runJob(claim, signal, deps, accountLimits(deps.config, claim.plan));
      } catch (error) {
        deps.logger.error(
          { job: claim.job.id, err: { type: (error as Error).name, stack: (error as Error).stack } },
          'job runner crashed',
        );
      } finally {
        leave();
        keeper.release(claim.leaseToken);
        // Stopping in order: hand the job straight back instead of letting its lease lapse,
        // which would delay it and count a stall towards worker_lost.
        if (stopped) await service.release(claim);
      }
      // Nothing was left at the claim and nothing announced since: claiming again would find
      // nothing, so sleep until a notice or the poll (which still finds other processes' jobs).
      expectWork = claim.moreQueued !== false || announced !== announcedBefore;
      if (!expectWork && !stopped) expectWork = await waiters.idle();
    }
  };

  const slots = Array.from({ length: concurrency }, () => slot());
  deps.logger.info(
    { worker: id, concurrency, ...(limits.tools ? { tools: limits.tools } : {}) },
    limits.tools ? 'workers started; only claiming the tools whose engines are here' : 'workers started',
  );

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

/** Each plan's concurrency, for the store's fair claim (docs/api.md §5: excess jobs wait, never fail). */
/**
 * Fairness from the plans, and — when this worker lacks an engine — only the tools it can run, so
 * a job it would fail with engine_unavailable waits for a worker that has the engine instead.
 */
export function claimLimits(config: Config, catalog?: ToolCatalog): ClaimLimits {
  const entries = catalog?.list() ?? [];
  const runnable = entries.filter((e) => e.available).map((e) => e.tool.name);
  const unavailable = entries.filter((e) => !e.available).map((e) => e.tool.name);
  return {
    concurrentJobsByPlan: Object.fromEntries(
      Object.values(config.plans).map((plan) => [plan.name, plan.concurrentJobs]),
    ),
    defaultConcurrentJobs: planFor(config.plans, FALLBACK_PLAN).concurrentJobs,
    ...(runnable.length < entries.length ? { tools: runnable, unavailableTools: unavailable } : {}),
  };
}
