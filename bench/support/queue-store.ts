// The real job store, loaded from the built service (dist/) at run time like engine-ratio's gs argv,
// so the benchmark measures exactly the code `quire` runs: open, seed a queue, and the claim loop a
// worker slot runs (claimNext, then complete) with no engine in between.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './paths.js';

/** The part of src/store/types.ts `ClaimLimits` the benchmark passes through. */
export interface ClaimLimits {
  concurrentJobsByPlan: Readonly<Record<string, number>>;
  defaultConcurrentJobs: number;
}

/** The slice of src/store/types.ts `Database` the benchmark uses (structurally checked at run time). */
export interface QueueDatabase {
  jobs: {
    create(job: {
      id: string;
      accountId: string;
      tool: string;
      options: Record<string, unknown>;
      secretOptions: string[];
      metadata: Record<string, string>;
      inputs: { name: string; size: number; contentType: string; blobKey: string }[];
      createdAt: number;
    }): Promise<unknown>;
    claimNext(
      workerId: string,
      leaseMs: number,
      now?: number,
      limits?: ClaimLimits,
    ): Promise<{ job: { id: string }; leaseToken: string } | undefined>;
    complete(
      id: string,
      token: string,
      result: {
        name: string;
        size: number;
        contentType: string;
        blobKey: string;
        facts: Record<string, unknown>;
      },
      expiresAt: number,
      now?: number,
    ): Promise<boolean>;
    countByStatus(): Promise<Record<string, number>>;
  };
  accounts: {
    createAccount(account: { id: string; name: string; plan: string; createdAt: number }): Promise<unknown>;
  };
  migrate(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type OpenDatabase = (url: string, options?: { poolMax?: number }) => Promise<QueueDatabase>;

interface PlansModule {
  defaultPlans: Readonly<Record<string, { name: string; concurrentJobs: number }>>;
  FALLBACK_PLAN: string;
}

const distUrl = (file: string) => pathToFileURL(path.join(repoRoot, 'dist', file)).href;

/** src/store/open.ts `openDatabase`, as built. */
export async function loadOpenDatabase(): Promise<OpenDatabase> {
  return ((await import(distUrl('store/open.js'))) as { openDatabase: OpenDatabase }).openDatabase;
}

/** What src/jobs/worker.ts `claimLimits` builds from the built-in plans (free 2, pro 10, business 50). */
export async function defaultClaimLimits(): Promise<ClaimLimits> {
  const { defaultPlans, FALLBACK_PLAN } = (await import(distUrl('config/plans.js'))) as PlansModule;
  return {
    concurrentJobsByPlan: Object.fromEntries(
      Object.values(defaultPlans).map((plan) => [plan.name, plan.concurrentJobs]),
    ),
    defaultConcurrentJobs: defaultPlans[FALLBACK_PLAN]!.concurrentJobs,
  };
}

/** The plan of every seeded account: the default account's (`quire serve`'s first start). */
export const SEED_PLAN = 'business';
const LEASE_MS = 60_000;
const RESULT_TTL_MS = 3_600_000;

export const accountId = (i: number) => `acct_bench_${String(i).padStart(3, '0')}`;

/**
 * Migrates, then creates `accounts` accounts and `jobs` queued one-file jobs spread over them in
 * turn, `parallel` inserts at a time. Ids and creation times increase, as the API's ULIDs do.
 */
export async function seedQueue(db: QueueDatabase, accounts: number, jobs: number, parallel: number) {
  await db.migrate();
  const t0 = Date.now() - jobs;
  for (let a = 0; a < accounts; a++) {
    await db.accounts.createAccount({ id: accountId(a), name: `bench ${a}`, plan: SEED_PLAN, createdAt: t0 });
  }
  let next = 0;
  const inserter = async () => {
    for (let i = next++; i < jobs; i = next++) {
      const id = `job_bench${String(i).padStart(8, '0')}`;
      await db.jobs.create({
        id,
        accountId: accountId(i % accounts),
        tool: 'rotate',
        options: { angle: 90 },
        secretOptions: [],
        metadata: {},
        inputs: [
          { name: 'in.pdf', size: 4096, contentType: 'application/pdf', blobKey: `jobs/${id}/input-0` },
        ],
        createdAt: t0 + i,
      });
    }
  };
  await Promise.all(Array.from({ length: parallel }, inserter));
}

export interface ClaimLoopStats {
  /** Jobs claimed and completed. */
  claims: number;
  /** claimNext calls that found nothing while jobs were still queued (lost races). */
  emptyClaims: number;
  /** complete() calls that were refused (lease lost: would mean a double claim). */
  refusedCompletes: number;
  /** ms per successful claimNext, and per complete. */
  claimMs: number[];
  completeMs: number[];
  errors: string[];
}

/**
 * One worker slot without the engine: claim, complete at once, until the queue is empty. An empty
 * claim with jobs still queued (every candidate account was being claimed by others and its last
 * job went to one of them) is counted and retried.
 */
export async function claimLoop(
  db: QueueDatabase,
  workerId: string,
  limits: ClaimLimits,
): Promise<ClaimLoopStats> {
  const stats: ClaimLoopStats = {
    claims: 0,
    emptyClaims: 0,
    refusedCompletes: 0,
    claimMs: [],
    completeMs: [],
    errors: [],
  };
  for (;;) {
    const t0 = performance.now();
    let claim: Awaited<ReturnType<QueueDatabase['jobs']['claimNext']>>;
    try {
      claim = await db.jobs.claimNext(workerId, LEASE_MS, Date.now(), limits);
    } catch (error) {
      // The worker logs and retries; so does the benchmark, but a run with errors is reported.
      stats.errors.push((error as Error).message);
      if (stats.errors.length > 20) throw error;
      continue;
    }
    const t1 = performance.now();
    if (!claim) {
      if (((await db.jobs.countByStatus()).queued ?? 0) === 0) return stats;
      stats.emptyClaims += 1;
      continue;
    }
    const id = claim.job.id;
    const now = Date.now();
    const done = await db.jobs.complete(
      id,
      claim.leaseToken,
      {
        name: 'out.pdf',
        size: 4096,
        contentType: 'application/pdf',
        blobKey: `jobs/${id}/result`,
        facts: {},
      },
      now + RESULT_TTL_MS,
      now,
    );
    const t2 = performance.now();
    stats.claims += 1;
    stats.claimMs.push(t1 - t0);
    stats.completeMs.push(t2 - t1);
    if (!done) stats.refusedCompletes += 1;
  }
}
