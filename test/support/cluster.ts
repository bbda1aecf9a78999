// A scaled-out Quire for tests: several `quire api` and `quire worker` processes (the real CLI from
// dist/, each in its own process group and data directory) sharing one database, one storage URL and
// one secret, as separate machines would. Workers can be killed, paused and restarted.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type CliProcess, freePort, startCli, waitForReady } from './cli-process.js';
import { repoRoot } from './corpus.js';

const run = promisify(execFile);

export interface ClusterOptions {
  databaseUrl: string;
  storageUrl: string;
  apis: number;
  workers: number;
  /** Added to every process's environment (AWS credentials, leases, …). */
  env?: Record<string, string>;
}

export interface ApiProcess {
  url: string;
  cli: CliProcess;
}

export interface WorkerProcess {
  /** The worker's own data directory: its work dirs, and so its engines' arguments, are under it. */
  dataDir: string;
  cli: CliProcess;
  /** When the current incarnation was started (Date.now()). */
  startedAt: number;
  /** Starts it again (after kill9) on the same data directory. */
  restart(): void;
}

export interface QuireCluster {
  apis: ApiProcess[];
  workers: WorkerProcess[];
  /** A key with every scope, on the default account (plan `business`). */
  key: string;
  /** Holds every process's data directory. */
  root: string;
  /** Every process's output so far, killed incarnations included, labelled by process. */
  output(): string;
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<QuireCluster> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'quire-cluster-'));
  const shared: Record<string, string> = {
    QUIRE_DATABASE_URL: options.databaseUrl,
    QUIRE_STORAGE_URL: options.storageUrl,
    // One secret everywhere: a download link signed by one API process verifies at any other.
    QUIRE_SECRET: randomBytes(32).toString('hex'),
    QUIRE_LOG_LEVEL: 'warn',
    // The tests' traffic is one account's; the plan's request limit is not what they are about.
    QUIRE_PLAN_BUSINESS_REQUESTS_PER_WINDOW: '1000000',
    QUIRE_WORKER_POLL_MS: '100',
    QUIRE_SWEEP_INTERVAL_MS: '500',
    ...options.env,
  };
  const dirFor = async (name: string) => {
    const dir = path.join(root, name);
    await mkdir(dir);
    return dir;
  };

  // The account and key are made while the services start: every one of these processes migrates
  // the fresh database at once, under the migration lock.
  const keyDir = await dirFor('keys');
  const created = run(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), 'keys', 'create'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir(), ...shared, QUIRE_DATA_DIR: keyDir },
  });
  // Awaited below; until then a failure must not count as an unhandled rejection.
  created.catch(() => undefined);
  let key = '';

  const apis: ApiProcess[] = [];
  const workers: WorkerProcess[] = [];
  const retired: Array<{ label: string; cli: CliProcess }> = [];
  try {
    for (let i = 0; i < options.apis; i++) {
      const port = await freePort();
      const env = { ...shared, QUIRE_DATA_DIR: await dirFor(`api-${i + 1}`), QUIRE_PORT: String(port) };
      apis.push({ url: `http://127.0.0.1:${port}`, cli: startCli(['api'], env) });
    }
    for (let i = 0; i < options.workers; i++) {
      const dataDir = await dirFor(`worker-${i + 1}`);
      const worker: WorkerProcess = {
        dataDir,
        cli: startCli(['worker'], { ...shared, QUIRE_DATA_DIR: dataDir }),
        startedAt: Date.now(),
        restart() {
          retired.push({ label: `worker-${i + 1} (killed)`, cli: worker.cli });
          worker.cli = startCli(['worker'], { ...shared, QUIRE_DATA_DIR: dataDir });
          worker.startedAt = Date.now();
        },
      };
      workers.push(worker);
    }
    await Promise.all(apis.map((api) => waitForReady(api.url, 60_000)));
    key = (await created).stdout.trim();
  } catch (error) {
    await Promise.all([...apis, ...workers].map((p) => p.cli.kill9()));
    const output = [...apis, ...workers].map((p) => p.cli.output()).join('\n');
    await rm(root, { recursive: true, force: true });
    throw new Error(`the cluster did not start: ${String(error)}\n${output.slice(-4000)}`);
  }

  return {
    apis,
    workers,
    key,
    root,
    output: () =>
      [
        ...retired.map((r) => labelled(r.label, r.cli.output())),
        ...apis.map((a, i) => labelled(`api-${i + 1}`, a.cli.output())),
        ...workers.map((w, i) => labelled(`worker-${i + 1}`, w.cli.output())),
      ]
        .filter(Boolean)
        .join('\n'),
    async stop() {
      await Promise.all([...apis, ...workers].map((p) => p.cli.kill9()));
      await rm(root, { recursive: true, force: true });
    },
  };
}

function labelled(label: string, text: string): string {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => `[${label}] ${line}`)
    .join('\n');
}

/** Every process below `pid` (children, grandchildren, …), with its arguments. */
export interface ProcessRow {
  pid: number;
  ppid: number;
  /** Process group: an engine run leads its own. */
  pgid: number;
  args: string;
}

export function descendants(pid: number): ProcessRow[] {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), args: m[4] as string }));
  const found: ProcessRow[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of table) {
      if (parents.has(row.ppid) && !parents.has(row.pid)) {
        parents.add(row.pid);
        found.push(row);
        grew = true;
      }
    }
  }
  return found;
}

/** Processes whose arguments mention `dir` (engines work in a work dir under their worker's data dir). */
export function processesMentioning(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(dir) && !line.includes('ps -eo'));
}
