// The worker pool: a loop claims jobs from the SQL queue into N engine slots and runs them under a
// kept lease; each job's network transfers run in the transfer pool, holding no slot (docs/operations.md,
// "Transfers"). The loop sleeps until woken (in-process) or the poll interval passes.
import os from 'node:os';
import type { Config } from '../config/config.js';
import { accountLimits, FALLBACK_PLAN, planFor } from '../config/plans.js';
import { ulid } from '../model/ulid.js';
import { IdleWaiters } from '../process/idle-waiters.js';
import type { ClaimedJob, ClaimLimits } from '../store/types.js';
import type { ToolCatalog } from '../tools/framework/catalog.js';
import { jobStarted } from '../tools/framework/cpu-share.js';
import { EngineSlots } from './engine-slots.js';
import { JobService } from './job-service.js';
import { LeaseKeeper } from './lease-keeper.js';
import { type JobPhases, type RunJobDeps, runJob } from './run-job.js';
import { TransferPool } from './transfer-pool.js';

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
  const slots = new EngineSlots(concurrency);
  const transfers = new TransferPool(deps.config.transfers.concurrency, deps.config.transfers.maxPerAccount);
  // Jobs this process holds a lease on: in a slot, in a transfer, or waiting for either. Each account
  // has at most its plan's concurrent jobs among them; a worker whose transfer pool is crowded stops
  // claiming (TransferPool.crowded), leaving the queue to other workers.
  const held = new Set<Promise<void>>();
  const roomWaiters = new IdleWaiters(pollMs);
  let stopped = false;
  const waiters = new IdleWaiters(pollMs);
  /** Jobs announced so far (created or requeued, here or by a notice from another process). */
  let announced = 0;
  const offCreated = deps.events.onAny((change) => {
    if (change.kind !== 'created') return;
    announced++;
    waiters.wakeOne();
  });

  const carry = async (claim: ClaimedJob) => {
    const signal = keeper.hold(claim.job.id, claim.leaseToken);
    const phases = new SlotPhases(slots, transfers, claim.job.accountId);
    try {
      await runJob(claim, signal, deps, accountLimits(deps.config, claim.plan), phases);
    } catch (error) {
      deps.logger.error(
        { job: claim.job.id, err: { type: (error as Error).name, stack: (error as Error).stack } },
        'job runner crashed',
      );
    } finally {
      phases.leave();
      keeper.release(claim.leaseToken);
      // Stopping in order: hand the job straight back instead of letting its lease lapse,
      // which would delay it and count a stall towards worker_lost.
      if (stopped) await service.release(claim);
    }
  };

  // One loop claims, each claim into a free engine slot; the job takes the slot with it and gives it
  // back while it waits on the network (SlotPhases).
  const claiming = async () => {
    // Whether work is known to wait: a notice woke the loop, or its last claim left more queued.
    let expectWork = false;
    while (!stopped) {
      while (transfers.crowded() && !stopped) await roomWaiters.idle();
      await slots.acquire('claim');
      if (stopped) {
        slots.release();
        break;
      }
      const announcedBefore = announced;
      const claim = await claimOne(service, deps, id, leaseMs, limits, expectWork);
      if (!claim) {
        slots.release();
        expectWork = await waiters.idle();
        continue;
      }
      const job = carry(claim).finally(() => {
        held.delete(job);
        roomWaiters.wakeOne();
      });
      held.add(job);
      // Nothing was left at the claim and nothing announced since: claiming again would find
      // nothing, so sleep until a notice or the poll (which still finds other processes' jobs).
      expectWork = claim.moreQueued !== false || announced !== announcedBefore;
      if (!expectWork && !stopped) expectWork = await waiters.idle();
    }
  };

  const loop = claiming();
  deps.logger.info(
    { worker: id, concurrency, ...(limits.tools ? { tools: limits.tools } : {}) },
    limits.tools ? 'workers started; only claiming the tools whose engines are here' : 'workers started',
  );

  return {
    id,
    async stop() {
      stopped = true;
      offCreated();
      waiters.wakeAll();
      roomWaiters.wakeAll();
      keeper.stop();
      slots.release(); // a claim waiting for a slot wakes, sees `stopped` and gives it back
      await loop;
      await Promise.allSettled([...held]);
    },
  };
}

async function claimOne(
  service: JobService,
  deps: RunJobDeps,
  id: string,
  leaseMs: number,
  limits: ClaimLimits,
  expectWork: boolean,
): Promise<ClaimedJob | undefined> {
  try {
    return await service.claim(id, leaseMs, limits, expectWork);
  } catch (error) {
    deps.logger.error(
      { err: { type: (error as Error).name, stack: (error as Error).stack } },
      'claim failed',
    );
    return undefined;
  }
}

/**
 * One job's way through the worker: it starts in the slot its claim took, gives the slot back for
 * each transfer (run in the pool under the account's share) and takes one again, before new claims,
 * for its tools. Engine slots therefore bound engines, and a slow peer holds only a transfer place.
 */
class SlotPhases implements JobPhases {
  private holding = true;

  constructor(
    private readonly slots: EngineSlots,
    private readonly transfers: TransferPool,
    private readonly account: string,
  ) {}

  async engine<T>(work: () => Promise<T>): Promise<T> {
    if (!this.holding) {
      await this.slots.acquire('held');
      this.holding = true;
    }
    const leaveCpu = jobStarted();
    try {
      return await work();
    } finally {
      leaveCpu();
    }
  }

  transfer<T>(work: () => Promise<T>): Promise<T> {
    this.leave();
    return this.transfers.run(this.account, work);
  }

  /** Gives the slot back, if held (idempotent). */
  leave(): void {
    if (!this.holding) return;
    this.holding = false;
    this.slots.release();
  }
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
