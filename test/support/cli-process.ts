// Runs the real `quire` CLI (dist/) as a child process in its own process group, for tests that
// kill it, restart it, or drive it with curl like an operator would.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './corpus.js';

export interface CliProcess {
  child: ChildProcess;
  output: () => string;
  /** SIGKILL to the whole process group: the process and every engine it started. */
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export function startCli(args: string[], env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    out += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signalGroup = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Already gone.
    }
    await exited;
  };
  return {
    child,
    output: () => out,
    kill9: () => signalGroup('SIGKILL'),
    stop: () => signalGroup('SIGTERM'),
  };
}

export async function waitForReady(baseUrl: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${baseUrl} did not become ready`);
}

export async function readInitialKey(dataDir: string): Promise<string> {
  return (await readFile(path.join(dataDir, 'initial-api-key'), 'utf8')).trim();
}

/**
 * `quire serve` for crash tests: one worker slot, a 2 s lease and a fast sweep, so a job whose process
 * was killed -9 is taken up again within seconds by the process `start()` runs next. `setUp` and
 * `tearDown` belong in beforeAll/afterAll; the data dir (and so the job) outlives each process.
 */
export function crashableServe(name: string) {
  let dataDir = '';
  let port = 0;
  let cli: CliProcess | undefined;
  return {
    get dataDir() {
      return dataDir;
    },
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    async setUp() {
      dataDir = await mkdtemp(path.join(os.tmpdir(), `quire-${name}-`));
      port = await freePort();
    },
    async start() {
      cli = startCli(['serve'], {
        QUIRE_DATA_DIR: dataDir,
        QUIRE_PORT: String(port),
        QUIRE_LOG_LEVEL: 'warn',
        QUIRE_WORKER_CONCURRENCY: '1',
        QUIRE_JOB_LEASE_MS: '2000',
        QUIRE_SWEEP_INTERVAL_MS: '300',
      });
      await waitForReady(this.url);
    },
    async kill9() {
      await cli?.kill9();
    },
    key: () => readInitialKey(dataDir),
    async tearDown() {
      await cli?.kill9();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
