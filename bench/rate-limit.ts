// Rate limiting shared by every API process: what the PostgreSQL-backed limiter costs, measured
// three ways. (1) The real store doing what a keyed request asks of it (rateLimits.peek of the
// client address's failed-authentication bucket, then consume of the account's bucket: two GCRA
// statements) on PostgreSQL and SQLite, 1 and 8 concurrent callers, one hot account and 1000.
// (2) The GCRA step with C clients on both sides: pgbench running the limiter's statement against
// redis-benchmark running it as a Lua script in Redis, the alternative the issue names. (3) Keyed
// GET requests to `quire api` on PostgreSQL, and the limiter's share of their CPU; with (2), an
// upper bound of what moving the limiter to Redis could save. No pass/fail target: these are the
// measurements behind the choice (docs/operations.md). PostgreSQL and Redis are throwaway servers
// without durability (fsync off, no AOF).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type PgTestServer, postgresBinDir, startPostgresServer } from '../test/support/pg-server.js';
import { cliEntry, repoRoot } from './support/paths.js';
import { treeCpuMs } from './support/process-tree.js';
import { type CliChild, freePort, spawnCli, waitForReady } from './support/server.js';
import { fmt, median, percentile, table } from './support/stats.js';
import type { BenchResult } from './types.js';

const run = promisify(execFile);

const STORE_OPS = 6000;
const CALLERS = [1, 8] as const;
const BUCKETS = [1, 1000] as const;
/** A policy that never refuses: every call is a full read-modify-write of its bucket. */
const POLICY = { quota: 1_000_000, windowMs: 60_000 };
/** The failed-authentication policy every keyed request peeks at first (QUIRE_AUTH_FAILURES_PER_MIN). */
const AUTH_FAILURES = { quota: 30, windowMs: 60_000 };
const PEER_SECONDS = 5;
const PEER_CONNECTIONS = 8;
const REQUESTS = 3000;
const REQUEST_WARMUP = 200;
const REQUEST_CALLERS = 8;

interface RateStore {
  rateLimits: {
    peek(bucket: string, policy: { quota: number; windowMs: number }): Promise<{ allowed: boolean }>;
    consume(bucket: string, policy: { quota: number; windowMs: number }): Promise<{ allowed: boolean }>;
  };
  migrate(): Promise<void>;
  close(): Promise<void>;
}

interface StoreRun {
  backend: 'postgres' | 'sqlite';
  callers: number;
  buckets: number;
  perSecond: number;
  latencyMs: number[];
  cpuMsPerOp: number;
}

async function openStore(url: string): Promise<RateStore> {
  const { openDatabase } = (await import(pathToFileURL(path.join(repoRoot, 'dist/store/open.js')).href)) as {
    openDatabase: (url: string, options?: { poolMax?: number }) => Promise<RateStore>;
  };
  const db = await openDatabase(url, { poolMax: 8 });
  await db.migrate();
  return db;
}

/**
 * `callers` loops share STORE_OPS limiter checks, each a keyed request's: peek of its client address's
 * bucket, consume of its account's, over `buckets` accounts; CPU = this process + the server.
 */
async function storeRun(
  db: RateStore,
  backend: StoreRun['backend'],
  serverPid: number | undefined,
  callers: number,
  buckets: number,
): Promise<StoreRun> {
  const latencyMs: number[] = [];
  let next = 0;
  const serverCpu = () => (serverPid === undefined ? 0 : treeCpuMs(serverPid));
  const cpu0 = process.cpuUsage();
  const server0 = serverCpu();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < STORE_OPS) {
        const account = next++ % buckets;
        const started = performance.now();
        await db.rateLimits.peek(`auth-failures:10.0.0.${account % 250}`, AUTH_FAILURES);
        await db.rateLimits.consume(`account:${account}`, POLICY);
        latencyMs.push(performance.now() - started);
      }
    }),
  );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const clientMs = (cpu.user + cpu.system) / 1000;
  return {
    backend,
    callers,
    buckets,
    perSecond: (STORE_OPS / ms) * 1000,
    latencyMs,
    cpuMsPerOp: (clientMs + serverCpu() - server0) / STORE_OPS,
  };
}

async function storeRuns(pgServer: PgTestServer, dir: string): Promise<StoreRun[]> {
  const runs: StoreRun[] = [];
  for (const backend of ['postgres', 'sqlite'] as const) {
    const url =
      backend === 'postgres' ? await pgServer.createDatabase() : `sqlite://${path.join(dir, 'rate.db')}`;
    const db = await openStore(url);
    try {
      const serverPid = backend === 'postgres' ? pgServer.pid : undefined;
      await storeRun(db, backend, serverPid, 8, 1000); // warm-up: JIT, connections, prepared statements
      for (const buckets of BUCKETS) {
        for (const callers of CALLERS) runs.push(await storeRun(db, backend, serverPid, callers, buckets));
      }
    } finally {
      await db.close();
    }
  }
  return runs;
}

/**
 * The statement postgres/dialect.ts `consumeRate` sends, with pgbench variables and the server clock
 * in place of its parameters (keep the two in step).
 */
const PGBENCH_SCRIPT = `\\set b random(1, 1000)
INSERT INTO rate_limits AS r (bucket, tat, allowed)
VALUES ('acct_' || :b, floor(extract(epoch FROM clock_timestamp()) * 1000) + 0.06, true)
ON CONFLICT (bucket) DO UPDATE SET
  allowed = greatest(r.tat, floor(extract(epoch FROM clock_timestamp()) * 1000)) + 0.06
            - floor(extract(epoch FROM clock_timestamp()) * 1000) <= 60000,
  tat = CASE WHEN greatest(r.tat, floor(extract(epoch FROM clock_timestamp()) * 1000)) + 0.06
                  - floor(extract(epoch FROM clock_timestamp()) * 1000) <= 60000
             THEN greatest(r.tat, floor(extract(epoch FROM clock_timestamp()) * 1000)) + 0.06 ELSE r.tat END
RETURNING tat, allowed;
`;

/** The same GCRA step as a Redis script: one key per bucket holding its theoretical arrival time. */
const REDIS_GCRA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local new = math.max(tat, now) + interval
if new - now <= window then
  redis.call('SET', KEYS[1], tostring(new), 'PX', window)
  return 1
end
return 0`;

interface PeerRun {
  name: string;
  perSecond: number;
  serverCpuMsPerOp: number;
}

async function pgbenchRun(pgServer: PgTestServer, dir: string): Promise<PeerRun> {
  const url = await pgServer.createDatabase();
  await (await openStore(url)).close();
  const script = path.join(dir, 'gcra.sql');
  await writeFile(script, PGBENCH_SCRIPT);
  const pgbench = path.join(postgresBinDir(), 'pgbench');
  const args = ['-n', '-M', 'prepared', '-c', String(PEER_CONNECTIONS), '-j', '2', '-f', script];
  await run(pgbench, [...args, '-T', '1', url]); // warm-up
  const cpu0 = treeCpuMs(pgServer.pid);
  const { stdout } = await run(pgbench, [...args, '-T', String(PEER_SECONDS), url]);
  const cpu = treeCpuMs(pgServer.pid) - cpu0;
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1]);
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1]);
  if (!Number.isFinite(tps) || !transactions) throw new Error(`pgbench printed no rate:\n${stdout}`);
  return { name: 'PostgreSQL (pgbench, prepared)', perSecond: tps, serverCpuMsPerOp: cpu / transactions };
}

async function redisRun(dir: string): Promise<PeerRun | string> {
  const missing = ['redis-server', 'redis-cli', 'redis-benchmark'].filter(
    (command) => !commandExists(command),
  );
  if (missing.length > 0)
    return `not run: ${missing.join(', ')} missing (apt-get install redis-server redis-tools)`;
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore', detached: true },
  );
  const cli = (...args: string[]) => run('redis-cli', ['-p', String(port), ...args]);
  try {
    await until(async () => (await cli('ping').catch(() => ({ stdout: '' }))).stdout.trim() === 'PONG');
    const sha = (await cli('script', 'load', REDIS_GCRA)).stdout.trim();
    const command = ['EVALSHA', sha, '1', 'acct___rand_int__', '0.06', '60000'];
    const benchArgs = ['-p', String(port), '-c', String(PEER_CONNECTIONS), '-r', '1000', '-q'];
    await run('redis-benchmark', [...benchArgs, '-n', '20000', ...command]); // warm-up
    const requests = 400_000;
    const cpu0 = treeCpuMs(server.pid!);
    const { stdout } = await run('redis-benchmark', [...benchArgs, '-n', String(requests), ...command]);
    const cpu = treeCpuMs(server.pid!) - cpu0;
    // "-q" ends with "EVALSHA …: 81234.56 requests per second, p50=… msec"
    const rate = Number(/([\d.]+) requests per second/.exec(stdout.split('\r').at(-1) ?? stdout)?.[1]);
    if (!Number.isFinite(rate)) throw new Error(`redis-benchmark printed no rate:\n${stdout}`);
    return { name: 'Redis 7 (redis-benchmark, EVALSHA)', perSecond: rate, serverCpuMsPerOp: cpu / requests };
  } finally {
    stopGroup(server);
  }
}

function commandExists(command: string): boolean {
  return (process.env.PATH ?? '/usr/bin:/bin').split(':').some((dir) => existsSync(path.join(dir, command)));
}

function stopGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the server did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface RequestRun {
  perSecond: number;
  latencyMs: number[];
  cpuMsPerRequest: number;
}

/** Keyed `GET /api/v1/jobs?limit=1` (authentication, the limiter, one indexed read) against `quire api`. */
async function requestRun(pgServer: PgTestServer, dir: string): Promise<RequestRun> {
  const env: Record<string, string> = {
    QUIRE_DATABASE_URL: await pgServer.createDatabase(),
    QUIRE_STORAGE_URL: `file://${path.join(dir, 'files')}`,
    QUIRE_SECRET: randomBytes(32).toString('hex'),
    QUIRE_LOG_LEVEL: 'warn',
    // Every request is counted against the account's bucket; none is refused.
    QUIRE_PLAN_BUSINESS_REQUESTS_PER_WINDOW: '1000000',
  };
  const keysDir = path.join(dir, 'keys');
  await mkdir(keysDir);
  const { stdout } = await run(process.execPath, [cliEntry, 'keys', 'create'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir(), ...env, QUIRE_DATA_DIR: keysDir },
  });
  const key = stdout.trim();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const apiDir = path.join(dir, 'api');
  await mkdir(apiDir);
  let api: CliChild | undefined;
  try {
    api = spawnCli(['api'], {
      ...env,
      QUIRE_DATA_DIR: apiDir,
      QUIRE_HOST: '127.0.0.1',
      QUIRE_PORT: String(port),
    });
    await waitForReady(baseUrl, api);
    const headers = { authorization: `Bearer ${key}` };
    const load = async (count: number, latencyMs: number[]) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: REQUEST_CALLERS }, async () => {
          while (next++ < count) {
            const started = performance.now();
            const response = await fetch(`${baseUrl}/api/v1/jobs?limit=1`, { headers });
            await response.arrayBuffer();
            if (response.status !== 200) throw new Error(`GET /api/v1/jobs answered ${response.status}`);
            latencyMs.push(performance.now() - started);
          }
        }),
      );
    };
    await load(REQUEST_WARMUP, []);
    const latencyMs: number[] = [];
    const serverCpu = () => treeCpuMs(api!.child.pid!) + treeCpuMs(pgServer.pid);
    const cpu0 = serverCpu();
    const t0 = performance.now();
    await load(REQUESTS, latencyMs);
    const ms = performance.now() - t0;
    return {
      perSecond: (REQUESTS / ms) * 1000,
      latencyMs,
      cpuMsPerRequest: (serverCpu() - cpu0) / REQUESTS,
    };
  } finally {
    await api?.stop();
  }
}

export async function rateLimit(): Promise<BenchResult> {
  const pgServer = await startPostgresServer();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-rate-'));
  try {
    const stores = await storeRuns(pgServer, dir);
    const pgPeer = await pgbenchRun(pgServer, dir);
    const redisPeer = await redisRun(dir);
    const requests = await requestRun(pgServer, dir);

    // The requests all come from one account: its bucket is the hot one.
    const pgHot = stores.find((r) => r.backend === 'postgres' && r.buckets === 1 && r.callers === 8)!;
    const share = pgHot.cpuMsPerOp / requests.cpuMsPerRequest;
    // Redis could at best do the request's limiting for its server's CPU for one GCRA step (the
    // peek is cheaper still) and a client that costs nothing: what it could save is at most this.
    const redisSaving =
      typeof redisPeer === 'string'
        ? undefined
        : (pgHot.cpuMsPerOp - redisPeer.serverCpuMsPerOp) / requests.cpuMsPerRequest;
    const label = (r: StoreRun) => (r.backend === 'postgres' ? 'PostgreSQL' : 'SQLite');
    const storeRows = [
      ['store', 'accounts', 'callers', 'checks/s', 'p50 / p99 ms', 'CPU ms/check (client + db)'],
      ...stores.map((r) => [
        label(r),
        String(r.buckets),
        String(r.callers),
        fmt(r.perSecond, 0),
        `${fmt(median(r.latencyMs), 3)} / ${fmt(percentile(r.latencyMs, 99), 2)}`,
        fmt(r.cpuMsPerOp, 3),
      ]),
    ];
    const peers = [pgPeer, ...(typeof redisPeer === 'string' ? [] : [redisPeer])];
    const peerRows = [
      ['server', 'GCRA steps/s', 'server CPU ms/step'],
      ...peers.map((p) => [p.name, fmt(p.perSecond, 0), fmt(p.serverCpuMsPerOp, 4)]),
    ];
    const indent = (text: string) => text.split('\n').map((line) => `    ${line}`);
    const vsRedis =
      typeof redisPeer === 'string'
        ? `  Redis: ${redisPeer}`
        : `  PostgreSQL / Redis: ${fmt(pgPeer.perSecond / redisPeer.perSecond, 2)}× the rate, ` +
          `${fmt(pgPeer.serverCpuMsPerOp / redisPeer.serverCpuMsPerOp, 1)}× the server CPU per step`;
    const lines = [
      `rate-limit: the real store's checks for a keyed request (peek + consume, two GCRA statements), ${STORE_OPS} per run; ` +
        `PostgreSQL ${path.basename(path.dirname(postgresBinDir()))} (throwaway, same machine, fsync off); CPU = this process + the database server`,
      ...indent(table(storeRows)),
      `  one GCRA step from C clients, ${PEER_CONNECTIONS} connections, 1000 buckets (${PEER_SECONDS} s pgbench; 400 000 redis-benchmark calls):`,
      ...indent(table(peerRows)),
      vsRedis,
      `  keyed GET /api/v1/jobs?limit=1 on quire api + PostgreSQL, ${REQUEST_CALLERS} callers, one account: ` +
        `${fmt(requests.perSecond, 0)} requests/s, p50 ${fmt(median(requests.latencyMs), 2)} ms, ` +
        `CPU ${fmt(requests.cpuMsPerRequest, 2)} ms per request (api + PostgreSQL)`,
      `  the limiter's share of that: ${fmt(pgHot.cpuMsPerOp, 3)} ms of ${fmt(requests.cpuMsPerRequest, 2)} ms = ${fmt(share * 100, 1)} %` +
        (redisSaving === undefined
          ? ''
          : `; Redis could save at most ${fmt(redisSaving * 100, 1)} % of a keyed request's CPU`),
    ];
    const storeSummary = (backend: StoreRun['backend']) =>
      stores
        .filter((r) => r.backend === backend)
        .map((r) => `${r.buckets}×${r.callers}: ${fmt(r.perSecond, 0)}`)
        .join(', ');
    return {
      name: 'rate-limit',
      lines,
      summary: [
        ['PG limiter checks/s (accounts×callers)', storeSummary('postgres')],
        ['SQLite limiter checks/s', storeSummary('sqlite')],
        ['pgbench GCRA steps/s', fmt(pgPeer.perSecond, 0)],
        ['Redis GCRA steps/s', typeof redisPeer === 'string' ? 'not run' : fmt(redisPeer.perSecond, 0)],
        ['keyed requests/s (api + PG)', fmt(requests.perSecond, 0)],
        ['limiter share of a request', `${fmt(share * 100, 1)} %`],
        [
          'Redis could save at most',
          redisSaving === undefined ? 'not run' : `${fmt(redisSaving * 100, 1)} %`,
        ],
      ],
      ok: undefined,
    };
  } finally {
    await pgServer.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
