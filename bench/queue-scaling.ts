// Queue scaling on PostgreSQL: (1) how many claim+complete pairs per second the real job store hands
// out to 1–8 concurrent claimers, one account and ten (the fair-claiming path), with SQLite beside it;
// (2) end-to-end jobs/s of one `quire api` and 1, 2, 4 `quire worker` processes on a shared
// PostgreSQL, with the cheapest job there is: the engine-bound job rate, reached when the workers fill
// the cores running jobs; (3) for reference, the bare engine (the rotate tool's qpdf runs, per core ×
// cores), a job with no service around it at all. Target: the best claim rate is at least 20× the
// engine-bound job rate, so the queue is never the bottleneck. PostgreSQL is a throwaway server
// (test/support/pg-server.ts: fsync off).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import pg from 'pg';
import { type PgTestServer, postgresBinDir, startPostgresServer } from '../test/support/pg-server.js';
import { rotateToolArgvs, SERVICE_WRAPPER, SERVICE_WRAPPER_NAME } from './job-overhead.js';
import { BenchClient, type JobView } from './support/client.js';
import { readMemory } from './support/memory.js';
import { cliEntry, corpusFile, QPDF_OK, repoRoot } from './support/paths.js';
import { reapedChildrenCpuMs, treeCpuMs } from './support/process-tree.js';
import {
  type ClaimLoopStats,
  claimLoop,
  defaultClaimLimits,
  loadOpenDatabase,
  type OpenDatabase,
  type QueueDatabase,
  seedQueue,
} from './support/queue-store.js';
import { runRawOk } from './support/raw.js';
import { type CliChild, freePort, spawnCli, waitForReady } from './support/server.js';
import { fmt, MiB, median, percentile, table } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const run = promisify(execFile);

/** Queued jobs per claim run; every run starts on a fresh, freshly seeded database. */
const CLAIM_JOBS = 1000;
const CLAIMERS = [1, 2, 4, 8];
const PROCESS_CLAIMERS = [4];
/** Accounts in the fair-claiming runs: they take turns, and a claimer skips one another holds. */
const FAIR_ACCOUNTS = 10;
/** Connections per claimer's pool: a claim uses one at a time (the ranking, then the transaction). */
const CLAIMER_POOL_MAX = 2;
const SEED_PARALLEL = 8;
const WARMUP_JOBS = 300;

const INPUT = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
const E2E_JOBS = 60;
const E2E_SUBMITTERS = 8;
const WORKERS = [1, 2, 4];
const ENGINE_WARMUP = 5;
const ENGINE_RUNS = 40;
/** The queue should hand out jobs at least this many times faster than saturated workers finish them. */
const TARGET_FACTOR = 20;

type Backend = 'postgres' | 'sqlite';
/** in-process: claimers as async loops in this process; processes: one child process per claimer. */
type Mode = 'in-process' | 'processes';

interface ClaimRun {
  backend: Backend;
  mode: Mode;
  accounts: number;
  claimers: number;
  ms: number;
  perSecond: number;
  stats: ClaimLoopStats;
  /** CPU time of the claimers (this process, or the claimer processes) over the run. */
  clientCpuMs: number;
  /** CPU time of the PostgreSQL server (postmaster and every backend) over the run; SQLite: 0. */
  dbCpuMs: number;
}

/** CPU ms per claim+complete pair, claimers and database together. */
const cpuPerClaim = (r: ClaimRun) => (r.clientCpuMs + r.dbCpuMs) / r.stats.claims;
/**
 * The rate this machine would reach if the claims had every core to themselves: cores / CPU per
 * claim, and no more than the claiming threads can do (one event loop per claiming process; SQLite
 * runs inside it). Unlike claims/s it hardly moves with what else runs on the machine; it ignores
 * waiting for locks.
 */
const cpuCeiling = (r: ClaimRun) => {
  const threads = r.mode === 'processes' ? r.claimers : 1;
  const clientPerClaim = r.clientCpuMs / r.stats.claims;
  return Math.min((os.availableParallelism() * 1000) / cpuPerClaim(r), (threads * 1000) / clientPerClaim);
};

function mergeStats(all: ClaimLoopStats[]): ClaimLoopStats {
  return {
    claims: all.reduce((n, s) => n + s.claims, 0),
    emptyClaims: all.reduce((n, s) => n + s.emptyClaims, 0),
    refusedCompletes: all.reduce((n, s) => n + s.refusedCompletes, 0),
    claimMs: all.flatMap((s) => s.claimMs),
    completeMs: all.flatMap((s) => s.completeMs),
    errors: all.flatMap((s) => s.errors),
  };
}

/** Claimers as separate node processes, each with its own pool (as separate `quire worker`s). */
async function claimInProcesses(
  url: string,
  claimers: number,
): Promise<(ClaimLoopStats & { cpuMs: number })[]> {
  const script = path.join(repoRoot, 'dist/bench/support/claimer-process.js');
  const children: ChildProcess[] = [];
  try {
    const outputs = Array.from({ length: claimers }, (_, i) => {
      const child = spawn(process.execPath, [script, url, `wrk_bench_p${i}`, String(CLAIMER_POOL_MAX)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      children.push(child);
      const lines = createInterface({ input: child.stdout! });
      const ready = new Promise<void>((resolve, reject) => {
        child.once('close', (code) => reject(new Error(`claimer ${i} exited with ${code}`)));
        lines.once('line', (line) =>
          line === 'ready' ? resolve() : reject(new Error(`claimer ${i}: ${line}`)),
        );
      });
      const result = ready.then(
        () =>
          new Promise<ClaimLoopStats & { cpuMs: number }>((resolve, reject) => {
            // 'close', not 'exit': the stats line may still be in the pipe when the process exits.
            child.once('close', (code) => reject(new Error(`claimer ${i} exited with ${code}`)));
            lines.once('line', (line) => resolve(JSON.parse(line) as ClaimLoopStats & { cpuMs: number }));
          }),
      );
      result.catch(() => undefined); // awaited below unless a claimer fails to start
      return { child, ready, result };
    });
    await Promise.all(outputs.map((o) => o.ready));
    for (const o of outputs) o.child.stdin!.write('go\n');
    return await Promise.all(outputs.map((o) => o.result));
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  }
}

async function claimRun(
  open: OpenDatabase,
  url: string,
  backend: Backend,
  mode: Mode,
  accounts: number,
  claimers: number,
  dbCpu: () => number,
): Promise<ClaimRun> {
  const limits = await defaultClaimLimits();
  let started: number;
  let ms: number;
  let clientCpuMs: number;
  let dbCpuMs: number;
  let perClaimer: ClaimLoopStats[];
  if (mode === 'processes') {
    const db0 = dbCpu();
    started = performance.now();
    const results = await claimInProcesses(url, claimers);
    ms = performance.now() - started;
    dbCpuMs = dbCpu() - db0;
    clientCpuMs = results.reduce((sum, r) => sum + r.cpuMs, 0);
    perClaimer = results;
  } else {
    // PostgreSQL: a Database (a pool) per claimer. SQLite: one Database shared by every loop, as one
    // `quire serve` shares it between its worker slots (src/store/sqlite/database.ts: one connection
    // per process, or two in one event loop wait on each other's locks until busy_timeout).
    const dbs: QueueDatabase[] =
      backend === 'postgres'
        ? await Promise.all(Array.from({ length: claimers }, () => open(url, { poolMax: CLAIMER_POOL_MAX })))
        : [await open(url)];
    try {
      await Promise.all(dbs.map((db) => db.ping()));
      const db0 = dbCpu();
      started = performance.now();
      const cpu = process.cpuUsage();
      perClaimer = await Promise.all(
        Array.from({ length: claimers }, (_, i) => claimLoop(dbs[i % dbs.length]!, `wrk_bench_${i}`, limits)),
      );
      ms = performance.now() - started;
      const used = process.cpuUsage(cpu);
      clientCpuMs = (used.user + used.system) / 1000;
      dbCpuMs = dbCpu() - db0;
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  }
  const stats = mergeStats(perClaimer);

  const check = await open(url, { poolMax: 1 });
  try {
    const counts = await check.jobs.countByStatus();
    if (stats.claims !== CLAIM_JOBS || counts.succeeded !== CLAIM_JOBS || stats.refusedCompletes > 0) {
      throw new Error(
        `${backend} ${accounts} account(s) × ${claimers} claimers: ${stats.claims} claims, ` +
          `${stats.refusedCompletes} refused completes, counts ${JSON.stringify(counts)}`,
      );
    }
  } finally {
    await check.close();
  }
  return {
    backend,
    mode,
    accounts,
    claimers,
    ms,
    perSecond: (CLAIM_JOBS / ms) * 1000,
    stats,
    clientCpuMs,
    dbCpuMs,
  };
}

/** Migrates and seeds a database through the real store; claim runs get copies of it. */
async function seeded(open: OpenDatabase, url: string, backend: Backend, accounts: number): Promise<void> {
  const seed = await open(url, { poolMax: SEED_PARALLEL });
  try {
    await seedQueue(seed, accounts, CLAIM_JOBS, backend === 'sqlite' ? 1 : SEED_PARALLEL);
  } finally {
    await seed.close();
  }
}

async function warmUp(open: OpenDatabase, url: string): Promise<void> {
  const db = await open(url, { poolMax: SEED_PARALLEL });
  try {
    await seedQueue(db, 2, WARMUP_JOBS, 1);
    const limits = await defaultClaimLimits();
    await Promise.all([claimLoop(db, 'wrk_warmup_1', limits), claimLoop(db, 'wrk_warmup_2', limits)]);
  } finally {
    await db.close();
  }
}

/**
 * A fresh copy of a seeded PostgreSQL database (CREATE DATABASE … TEMPLATE: a file copy, much faster
 * than seeding thousands of jobs again). The template's last backend may still be exiting after its
 * pool closed, which makes the copy fail with object_in_use for a moment: retried.
 */
async function copyPgDatabase(pgServer: PgTestServer, template: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: pgServer.url() });
  await client.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}" STRATEGY FILE_COPY`);
        return pgServer.url(name);
      } catch (error) {
        if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    await client.end();
  }
}

async function claimRuns(pgServer: PgTestServer): Promise<ClaimRun[]> {
  const open = await loadOpenDatabase();
  const runs: ClaimRun[] = [];
  // Claimer processes start cold (no JIT yet) and each adds a process to schedule: one comparison
  // point beside the in-process runs, to keep the benchmark within minutes.
  const plan: [Backend, Mode, number, number[]][] = [
    ['postgres', 'in-process', 1, CLAIMERS],
    ['postgres', 'in-process', FAIR_ACCOUNTS, CLAIMERS],
    ['postgres', 'processes', FAIR_ACCOUNTS, PROCESS_CLAIMERS],
    ['sqlite', 'in-process', 1, CLAIMERS],
    ['sqlite', 'in-process', FAIR_ACCOUNTS, CLAIMERS],
  ];
  const pgCpu = () => treeCpuMs(pgServer.pid);
  await withTempDir('queue-sqlite', async (dir) => {
    // Untimed: the first claims of each store run on cold code (JIT, statement caches).
    await warmUp(open, await pgServer.createDatabase('queue_warmup'));
    await warmUp(open, `sqlite://${path.join(dir, 'warmup.db')}`);
    const templates = new Map<string, string>();
    let n = 0;
    for (const [backend, mode, accounts, claimerCounts] of plan) {
      const key = `${backend}_${accounts}`;
      let template = templates.get(key);
      if (template === undefined) {
        template = `queue_seed_${key}`;
        const url =
          backend === 'postgres'
            ? await pgServer.createDatabase(template)
            : `sqlite://${path.join(dir, `${template}.db`)}`;
        await seeded(open, url, backend, accounts);
        templates.set(key, template);
      }
      for (const claimers of claimerCounts) {
        const name = `queue_run_${++n}`;
        let url: string;
        if (backend === 'postgres') {
          url = await copyPgDatabase(pgServer, template, name);
        } else {
          // Closing the last connection checkpointed the WAL into the file and removed it.
          await copyFile(path.join(dir, `${template}.db`), path.join(dir, `${name}.db`));
          url = `sqlite://${path.join(dir, `${name}.db`)}`;
        }
        // SQLite runs inside the claiming process: its CPU is the client's.
        const dbCpu = backend === 'postgres' ? pgCpu : () => 0;
        runs.push(await claimRun(open, url, backend, mode, accounts, claimers, dbCpu));
      }
    }
  });
  return runs;
}

interface EngineRate {
  toolMs: number[];
  wrappedMs: number[];
  /** CPU ms of the tool's qpdf runs (unwrapped), per job. */
  cpuMsPerJob: number;
  cores: number;
  /** Jobs/s on the whole machine: cores / (median of the tool's qpdf runs, unwrapped). */
  jobsPerSecond: number;
}

/** The rotate tool's qpdf runs (rotateToolArgvs), sequentially, directly: the engine work of one job. */
async function engineRate(): Promise<EngineRate> {
  return withTempDir('queue-engine', async (dir) => {
    const argvs = rotateToolArgvs(INPUT, path.join(dir, 'out.pdf'));
    const wrapped = argvs.map((argv) => [...SERVICE_WRAPPER, ...argv]);
    const once = async (list: string[][]) => {
      let ms = 0;
      for (const argv of list) ms += (await runRawOk(argv, dir, QPDF_OK)).ms;
      return ms;
    };
    for (let i = 0; i < ENGINE_WARMUP; i++) await once(argvs);
    const toolMs: number[] = [];
    const wrappedMs: number[] = [];
    let cpuMs = 0;
    for (let i = 0; i < ENGINE_RUNS; i++) {
      const cpu0 = reapedChildrenCpuMs();
      toolMs.push(await once(argvs));
      cpuMs += reapedChildrenCpuMs() - cpu0;
      wrappedMs.push(await once(wrapped));
    }
    const cores = os.availableParallelism();
    return {
      toolMs,
      wrappedMs,
      cpuMsPerJob: cpuMs / ENGINE_RUNS,
      cores,
      jobsPerSecond: (1000 / median(toolMs)) * cores,
    };
  });
}

interface EndToEndRun {
  workers: number;
  ms: number;
  submitMs: number;
  jobsPerSecond: number;
  /** CPU ms per job of the service: the api, the workers with their engines, and PostgreSQL. */
  cpuMsPerJob: number;
  cpuSplit: { api: number; workers: number; postgres: number };
}

/** Every LISTEN connection is one started `quire` process (src/store/postgres/listener.ts). */
async function waitForListeners(url: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'quire-listen'`,
      );
      if ((rows[0]?.n ?? 0) >= count) return;
      if (Date.now() > deadline) throw new Error(`${rows[0]?.n} of ${count} quire processes listening`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
}

/** `jobs` rotate jobs created by `submitters` concurrent clients as fast as they can; all awaited. */
async function batch(client: BenchClient, jobs: number, submitters: number) {
  const t0 = performance.now();
  let next = 0;
  const waits: Promise<JobView>[] = [];
  const submitter = async () => {
    while (next < jobs) {
      next += 1;
      const created = await client.createJob('rotate', { angle: 90 }, [INPUT]);
      const wait = client.waitTerminal(created.id);
      wait.catch(() => undefined); // awaited below; this only keeps an early failure from being unhandled
      waits.push(wait);
    }
  };
  await Promise.all(Array.from({ length: submitters }, submitter));
  const submitMs = performance.now() - t0;
  const done = await Promise.all(waits);
  const ms = performance.now() - t0;
  const failed = done.filter((job) => job.status !== 'succeeded');
  if (failed.length > 0) {
    throw new Error(
      `${failed.length} of ${jobs} jobs did not succeed: ${failed[0]!.status} ${failed[0]!.error?.code} ${failed[0]!.error?.message}`,
    );
  }
  return { ms, submitMs };
}

/** One `quire api` and 1, 2, 4 `quire worker` processes (one slot each) on one PostgreSQL database. */
async function endToEnd(pgServer: PgTestServer): Promise<EndToEndRun[]> {
  const url = await pgServer.createDatabase();
  const root = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-scale-'));
  const shared: Record<string, string> = {
    QUIRE_DATABASE_URL: url,
    QUIRE_STORAGE_URL: `file://${path.join(root, 'files')}`,
    // One secret everywhere: the key the CLI hashes here is the key every API process accepts.
    QUIRE_SECRET: randomBytes(32).toString('hex'),
    QUIRE_LOG_LEVEL: 'warn',
    QUIRE_WORKER_CONCURRENCY: '1',
    // 60 creates plus their long-polls per step from one account: not what is measured here.
    QUIRE_PLAN_BUSINESS_REQUESTS_PER_WINDOW: '1000000',
  };
  const dataDir = async (name: string) => {
    const dir = path.join(root, name);
    await mkdir(dir);
    return dir;
  };
  const children: CliChild[] = [];
  try {
    // As an operator would: migrate and create the account and its key before anything serves.
    const created = await run(process.execPath, [cliEntry, 'keys', 'create'], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        ...shared,
        QUIRE_DATA_DIR: await dataDir('keys'),
      },
    });
    const key = created.stdout.trim();
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const api = spawnCli(['api'], {
      ...shared,
      QUIRE_DATA_DIR: await dataDir('api'),
      QUIRE_HOST: '127.0.0.1',
      QUIRE_PORT: String(port),
    });
    children.push(api);
    await waitForReady(baseUrl, api);
    const client = new BenchClient(baseUrl, key);

    const runs: EndToEndRun[] = [];
    let workers = 0;
    for (const count of WORKERS) {
      while (workers < count) {
        workers += 1;
        children.push(
          spawnCli(['worker'], { ...shared, QUIRE_DATA_DIR: await dataDir(`worker-${workers}`) }),
        );
      }
      await waitForListeners(url, 1 + count);
      await batch(client, 2 * count, E2E_SUBMITTERS); // warm-up: each new worker's first jobs
      const serviceCpu = () => ({
        api: treeCpuMs(api.child.pid!),
        workers: children.slice(1).reduce((sum, c) => sum + treeCpuMs(c.child.pid!), 0),
        postgres: treeCpuMs(pgServer.pid),
      });
      const cpu0 = serviceCpu();
      const { ms, submitMs } = await batch(client, E2E_JOBS, E2E_SUBMITTERS);
      const cpu1 = serviceCpu();
      const cpuSplit = {
        api: (cpu1.api - cpu0.api) / E2E_JOBS,
        workers: (cpu1.workers - cpu0.workers) / E2E_JOBS,
        postgres: (cpu1.postgres - cpu0.postgres) / E2E_JOBS,
      };
      runs.push({
        workers: count,
        ms,
        submitMs,
        jobsPerSecond: (E2E_JOBS / ms) * 1000,
        cpuMsPerJob: cpuSplit.api + cpuSplit.workers + cpuSplit.postgres,
        cpuSplit,
      });
    }
    return runs;
  } catch (error) {
    process.stderr.write(
      `quire output (tail):\n${children.map((c) => c.output().slice(-2000)).join('\n')}\n`,
    );
    throw error;
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await rm(root, { recursive: true, force: true });
  }
}

const label = (r: ClaimRun) =>
  `${r.backend === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${r.accounts} account${r.accounts > 1 ? 's' : ''}${r.mode === 'processes' ? ', processes' : ''}`;

export async function queueScaling(): Promise<BenchResult> {
  const pgServer = await startPostgresServer();
  try {
    const t0 = performance.now();
    const claims = await claimRuns(pgServer);
    const t1 = performance.now();
    const engine = await engineRate();
    const t2 = performance.now();
    const e2e = await endToEnd(pgServer);
    const t3 = performance.now();

    const pgRuns = claims.filter((r) => r.backend === 'postgres');
    const multi = pgRuns.filter((r) => r.claimers >= 2);
    const best = (multi.length > 0 ? multi : pgRuns).reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
    const bestCeiling = multi.reduce((a, b) => (cpuCeiling(b) > cpuCeiling(a) ? b : a), best);
    const fastest = e2e.reduce((a, b) => (b.jobsPerSecond > a.jobsPerSecond ? b : a));
    const bestE2e = fastest.jobsPerSecond;
    const ratio = best.perSecond / bestE2e;
    const ok = ratio >= TARGET_FACTOR;
    // The queue's CPU per job as a share of a whole job's, in the end-to-end run at that rate.
    const queueShare = cpuPerClaim(bestCeiling) / fastest.cpuMsPerJob;
    const peakRss = readMemory(process.pid)?.hwmBytes ?? Number.NaN;

    const claimRows = [
      [
        'store',
        'claimers',
        'claims/s',
        'claim p50/p90/p99 ms',
        'complete p50 ms',
        'empty claims',
        'CPU ms/claim (client + db)',
        'CPU ceiling claims/s',
      ],
      ...claims.map((r) => [
        label(r),
        String(r.claimers),
        fmt(r.perSecond, 0),
        `${fmt(median(r.stats.claimMs), 2)} / ${fmt(percentile(r.stats.claimMs, 90), 1)} / ${fmt(percentile(r.stats.claimMs, 99), 1)}`,
        fmt(median(r.stats.completeMs), 2),
        String(r.stats.emptyClaims),
        `${fmt(cpuPerClaim(r), 2)} (${fmt(r.clientCpuMs / r.stats.claims, 2)} + ${fmt(r.dbCpuMs / r.stats.claims, 2)})`,
        fmt(cpuCeiling(r), 0),
      ]),
    ];
    const errors = claims.flatMap((r) => r.stats.errors);
    const e2eRows = [
      [
        'workers',
        'jobs/s',
        'wall ms',
        'all submitted after ms',
        'CPU ms/job (api + workers + db)',
        'CPU ceiling jobs/s',
      ],
      ...e2e.map((r) => [
        String(r.workers),
        fmt(r.jobsPerSecond, 1),
        fmt(r.ms, 0),
        fmt(r.submitMs, 0),
        `${fmt(r.cpuMsPerJob, 1)} (${fmt(r.cpuSplit.api, 1)} + ${fmt(r.cpuSplit.workers, 1)} + ${fmt(r.cpuSplit.postgres, 1)})`,
        fmt((engine.cores * 1000) / r.cpuMsPerJob, 0),
      ]),
    ];
    const indent = (text: string) => text.split('\n').map((line) => `    ${line}`);
    const lines = [
      `queue-scaling: ${CLAIM_JOBS} queued jobs per claim run on a fresh database, each claimer looping ` +
        `claimNext + complete (no engine) until the queue is empty; PostgreSQL ${path.basename(path.dirname(postgresBinDir()))} ` +
        `(throwaway, same machine, fsync and synchronous_commit off); CPU = claimers + PostgreSQL server, from /proc`,
      ...indent(table(claimRows)),
      `  claim errors (retried): ${errors.length === 0 ? 'none' : `${errors.length}, first: ${errors[0]}`}`,
      `  end to end: 1 quire api + N quire worker (QUIRE_WORKER_CONCURRENCY=1) on PostgreSQL, ${E2E_JOBS} rotate ` +
        `jobs (${path.basename(INPUT)}) from ${E2E_SUBMITTERS} concurrent submitters, until all succeeded; ` +
        `CPU = api + workers with their engines + PostgreSQL`,
      ...indent(table(e2eRows)),
      `  bare engine: the rotate tool's qpdf runs directly, sequentially: p50 ${fmt(median(engine.toolMs))} ms ` +
        `(p10 ${fmt(percentile(engine.toolMs, 10))} ms; ${fmt(median(engine.wrappedMs))} ms under ${SERVICE_WRAPPER_NAME}) → ` +
        `${fmt(1000 / median(engine.toolMs), 1)} jobs/s per core × ${engine.cores} cores = ${fmt(engine.jobsPerSecond, 1)} jobs/s; ` +
        `CPU ${fmt(engine.cpuMsPerJob, 1)} ms per job`,
      `  engine-bound job rate: the fastest end-to-end rate, ${fmt(bestE2e, 1)} jobs/s (${fastest.workers} workers, ` +
        `CPU ceiling ${fmt((engine.cores * 1000) / fastest.cpuMsPerJob, 0)} jobs/s)`,
      `  best PostgreSQL claim rate with ≥ 2 claimers: ${fmt(best.perSecond, 0)} claims/s (${label(best)}, ` +
        `${best.claimers} claimers) = ${fmt(ratio, 1)}× the engine-bound job rate (target ≥ ${TARGET_FACTOR}×: ${ok ? 'met' : 'NOT met'})`,
      `  by CPU (load-independent): a claim + complete costs ${fmt(cpuPerClaim(bestCeiling), 2)} ms (${label(bestCeiling)}, ` +
        `${bestCeiling.claimers} claimers), ${fmt(queueShare * 100, 1)} % of the ${fmt(fastest.cpuMsPerJob, 1)} ms a job costs end to end ` +
        `= ${fmt(1 / queueShare, 1)}× headroom; ceiling ${fmt(cpuCeiling(bestCeiling), 0)} claims/s`,
      `  reference, the bare engine: ${fmt(best.perSecond / engine.jobsPerSecond, 1)}× its ${fmt(engine.jobsPerSecond, 1)} jobs/s ` +
        `(${fmt(cpuCeiling(bestCeiling) / engine.jobsPerSecond, 1)}× by CPU ceiling)`,
      `  benchmark process peak RSS (VmHWM) ${fmt(peakRss / MiB)} MiB; took: claim runs (seeding included) ` +
        `${fmt((t1 - t0) / 1000)} s, engine ${fmt((t2 - t1) / 1000)} s, end to end ${fmt((t3 - t2) / 1000)} s`,
    ];
    const pgOne = (accounts: number, mode: Mode) =>
      pgRuns
        .filter((r) => r.accounts === accounts && r.mode === mode)
        .map((r) => `${r.claimers}: ${fmt(r.perSecond, 0)}`)
        .join(', ');
    const sqliteRuns = (accounts: number) =>
      claims
        .filter((r) => r.backend === 'sqlite' && r.accounts === accounts)
        .map((r) => `${r.claimers}: ${fmt(r.perSecond, 0)}`)
        .join(', ');
    return {
      name: 'queue-scaling',
      lines,
      summary: [
        ['PG claims/s, 1 account (claimers: rate)', pgOne(1, 'in-process')],
        [`PG claims/s, ${FAIR_ACCOUNTS} accounts`, pgOne(FAIR_ACCOUNTS, 'in-process')],
        [`PG claims/s, ${FAIR_ACCOUNTS} accounts, processes`, pgOne(FAIR_ACCOUNTS, 'processes')],
        ['SQLite claims/s, 1 account', sqliteRuns(1)],
        [`SQLite claims/s, ${FAIR_ACCOUNTS} accounts`, sqliteRuns(FAIR_ACCOUNTS)],
        ['e2e jobs/s (workers: rate)', e2e.map((r) => `${r.workers}: ${fmt(r.jobsPerSecond, 1)}`).join(', ')],
        ['engine-bound jobs/s (fastest e2e)', fmt(bestE2e, 1)],
        ['best PG claims/s / engine-bound', `${fmt(ratio, 1)}× (target ≥ ${TARGET_FACTOR}×)`],
        ['queue CPU share of a job', `${fmt(queueShare * 100, 1)} % (${fmt(1 / queueShare, 1)}×)`],
        ['bare engine jobs/s (reference)', `${fmt(engine.jobsPerSecond, 1)} (${engine.cores} cores)`],
        ['bench process peak RSS', `${fmt(peakRss / MiB)} MiB`],
      ],
      ok,
    };
  } finally {
    await pgServer.stop();
  }
}
