// Starts a real `quire serve` (dist/) on a free port with a throw-away data directory, for the
// corpus runner: the runner must see exactly what a client sees, crashes included.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface RunningServer {
  url: string;
  key: string;
  /** Set when the server process ended before `stop()`: a crash as far as the runner is concerned. */
  exited(): string | undefined;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

async function waitFor<T>(what: string, attempt: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function startServer(workers: number): Promise<RunningServer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'quire-corpus-'));
  const port = await freePort();
  // A clean environment: the server refuses unknown QUIRE_* variables, so none are inherited.
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    QUIRE_DATA_DIR: dataDir,
    QUIRE_HOST: '127.0.0.1',
    QUIRE_PORT: String(port),
    QUIRE_LOG_LEVEL: 'warn',
    QUIRE_WORKER_CONCURRENCY: String(workers),
  };
  const child: ChildProcess = spawn(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), 'serve'], {
    cwd: repoRoot,
    env,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let stopping = false;
  let exit: string | undefined;
  const ended = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      if (!stopping) exit = `server exited (${signal ?? `code ${code}`}): ${stderr.trim().slice(-500)}`;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
    await ended;
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitFor('readiness', async () => ((await fetch(`${url}/readyz`)).ok ? true : undefined));
    const key = await waitFor(
      'the initial API key',
      async () => (await readFile(path.join(dataDir, 'initial-api-key'), 'utf8')).trim() || undefined,
    );
    return { url, key, exited: () => exit, stop };
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}; ${exit ?? stderr.slice(-500)}`);
  }
}
