// Starts the real `quire` CLI (dist/) as a child process in its own process group, on a free
// loopback port with a private temp data dir, and always takes it down again: the whole group is
// signalled (the server and any engine it started) and the data dir is removed.
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { cliEntry, repoRoot } from './paths.js';

export type ServerMode = 'serve' | 'api';

export interface BenchServer {
  baseUrl: string;
  pid: number;
  dataDir: string;
  key: string;
  /** Everything the server printed (stdout and stderr), for diagnosing a failed run. */
  output(): string;
  /** SIGTERM to the group, SIGKILL after a grace period; then removes the data dir. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

/** Groups still running and data dirs not yet removed, cleaned up if the benchmark ends early. */
const liveGroups = new Set<number>();
const liveDirs = new Set<string>();
let hooksInstalled = false;

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // 'exit' handlers must be synchronous: kill, then remove (the upload benchmark leaves 1 GiB).
  process.once('exit', () => {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
    for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface CliChild {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Node flags for the servers a benchmark starts, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to
 * profile them (Node refuses --cpu-prof in NODE_OPTIONS). The profile is written on a clean exit,
 * which the SIGTERM of `stop()` gives.
 */
const NODE_FLAGS = (process.env.QUIRE_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

/**
 * Settings added to every server a benchmark starts, as space-separated NAME=value pairs, for A/B
 * runs of one knob, e.g. `QUIRE_BENCH_SERVER_ENV=QUIRE_QPDF_FORKSERVER=false`. A benchmark's own
 * settings win.
 */
const SERVER_ENV = Object.fromEntries(
  (process.env.QUIRE_BENCH_SERVER_ENV ?? '')
    .split(' ')
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

/** Starts `quire <args>` in its own process group; the exit hook kills the group if it is left running. */
export function spawnCli(args: string[], env: Record<string, string>): CliChild {
  installHooks();
  const child = spawn(process.execPath, [...NODE_FLAGS, cliEntry, ...args], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      ...SERVER_ENV,
      ...env,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the quire CLI');
  liveGroups.add(pid);
  let out = '';
  const keep = (chunk: Buffer) => {
    // Only the tail matters for diagnosis; a debug-level server can print a lot.
    out = (out + chunk.toString()).slice(-64 * 1024);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      signalGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    // The leader is gone; anything left in its group (an engine) goes too.
    signalGroup(pid, 'SIGKILL');
    liveGroups.delete(pid);
  };
  return { child, output: () => out, stop };
}

export async function waitForReady(baseUrl: string, child: CliChild): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.child.exitCode !== null)
      throw new Error(`quire exited with ${child.child.exitCode}:\n${child.output()}`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${baseUrl} did not become ready:\n${child.output()}`);
}

/**
 * Starts `quire <mode>` on a fresh data dir. Only `serve` creates the account and the initial key,
 * so for `api` a short `serve` run bootstraps the data dir first.
 */
export async function startServer(mode: ServerMode, env: Record<string, string> = {}): Promise<BenchServer> {
  installHooks();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `quire-bench-${mode}-`));
  liveDirs.add(dataDir);
  try {
    if (mode !== 'serve') await bootstrap(dataDir);
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const child = spawnCli([mode], {
      QUIRE_HOST: '127.0.0.1',
      QUIRE_PORT: String(port),
      QUIRE_DATA_DIR: dataDir,
      QUIRE_LOG_LEVEL: 'warn',
      ...env,
    });
    try {
      await waitForReady(baseUrl, child);
    } catch (error) {
      await child.stop();
      throw error;
    }
    const key = (await readFile(path.join(dataDir, 'initial-api-key'), 'utf8')).trim();
    return {
      baseUrl,
      pid: child.child.pid!,
      dataDir,
      key,
      output: child.output,
      async stop() {
        await child.stop();
        await rm(dataDir, { recursive: true, force: true });
        liveDirs.delete(dataDir);
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    liveDirs.delete(dataDir);
    throw error;
  }
}

async function bootstrap(dataDir: string): Promise<void> {
  const port = await freePort();
  const child = spawnCli(['serve'], {
    QUIRE_HOST: '127.0.0.1',
    QUIRE_PORT: String(port),
    QUIRE_DATA_DIR: dataDir,
    QUIRE_LOG_LEVEL: 'warn',
  });
  try {
    await waitForReady(`http://127.0.0.1:${port}`, child);
  } finally {
    await child.stop();
  }
}
