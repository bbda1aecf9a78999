// Composition roots for the long-running commands: build dependencies, start what the mode needs,
// and shut down cleanly on SIGTERM/SIGINT. `listen` and `startWork` are also what the tests start.
import path from 'node:path';
import type { Config } from '../config/config.js';
import { buildApp, closeApp } from '../http/app.js';
import { startSweeper } from '../jobs/sweeper.js';
import { startWorkers } from '../jobs/worker.js';
import { startWebhookDispatcher } from '../webhooks/dispatcher.js';
import { ensureInitialKey } from './initial-key.js';
import { openRuntime, type Runtime } from './runtime.js';
import { signInLink } from './sign-in-link.js';
import { tuneHeapGrowth } from './v8-heap.js';

/** Resolves never; the process ends through the signal handler. */
const RUNNING = -1;

export async function runServe(config: Config): Promise<number> {
  tuneHeapGrowth();
  const runtime = await openRuntime(config);
  const key = await ensureInitialKey(runtime);
  const http = await listen(runtime);
  const stopWork = startWork(runtime);
  if (key)
    announceInitialKey(key, path.join(config.dataDir, 'initial-api-key'), signInLink(config, http.port, key));
  onShutdown(runtime, async () => {
    await http.stop();
    await stopWork();
  });
  return RUNNING;
}

export async function runApi(config: Config): Promise<number> {
  tuneHeapGrowth();
  // Several `quire api` processes may share the database: limits and key checks go to it by default.
  const requestState = config.requestState === 'auto' ? 'shared' : config.requestState;
  const runtime = await openRuntime({ ...config, requestState });
  const http = await listen(runtime);
  const sweeper = startSweeper(sweeperDeps(runtime));
  onShutdown(runtime, async () => {
    sweeper.stop();
    await http.stop();
  });
  return RUNNING;
}

export async function runWorker(config: Config): Promise<number> {
  tuneHeapGrowth();
  const runtime = await openRuntime(config);
  const stopWork = startWork(runtime);
  onShutdown(runtime, stopWork);
  return RUNNING;
}

/**
 * Shows the first key only to a person at a terminal: under systemd, Docker or Kubernetes stdout
 * is the log, which many people and systems read, so there it names the 0600 file instead.
 */
function announceInitialKey(key: string, file: string, link: string): void {
  const intro = 'First start: created an account and an API key with all scopes';
  process.stdout.write(
    process.stdout.isTTY
      ? `\n${intro} (shown once, also in ${file}):\n\n  ${key}\n\nSign in to the web app with this one-time link (the key stays in your browser):\n\n  ${link}\n\n`
      : `\n${intro}; read it from ${file} (readable by this user only).\n\n`,
  );
}

export interface Listening {
  /** The port bound: a configured port 0 becomes the one the system chose. */
  port: number;
  stop(): Promise<void>;
}

/** Serves the API on the configured address; `stop` waits `graceMs` for in-flight requests. */
export async function listen(runtime: Runtime, graceMs = 10_000): Promise<Listening> {
  const app = await buildApp(runtime);
  await app.listen({ host: runtime.config.http.host, port: runtime.config.http.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : runtime.config.http.port;
  // Ten seconds by default for in-flight requests; uploads cut off then are simply not jobs.
  return { port, stop: () => closeApp(app, graceMs) };
}

/** Job workers, webhook dispatcher and sweeper: everything a process that does the work runs. */
export function startWork(runtime: Runtime): () => Promise<void> {
  const workers = startWorkers(runtime);
  // Deliveries have their own few slots: a slow receiver never holds a job slot, nor a job a delivery.
  const dispatcher = startWebhookDispatcher({ ...runtime, webhooks: runtime.db.webhooks });
  const sweeper = startSweeper(sweeperDeps(runtime));
  return async () => {
    sweeper.stop();
    await Promise.all([workers.stop(), dispatcher.stop()]);
  };
}

function sweeperDeps(runtime: Runtime) {
  return {
    services: runtime.services,
    idempotency: runtime.db.idempotency,
    rateLimits: runtime.db.rateLimits,
    uploads: runtime.uploads,
    recordRetentionMs: runtime.config.retention.jobRecordMs,
    logger: runtime.logger,
    intervalMs: runtime.config.worker.sweepIntervalMs,
    maxStalls: runtime.config.worker.maxStalls,
    // A job runs a few engine calls, each capped by the engine timeout; three of them is generous.
    workDirs: { parent: runtime.config.tmpDir, staleAfterMs: 3 * runtime.config.limits.engineTimeoutMs },
  };
}

function onShutdown(runtime: Runtime, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, 'shutting down');
    try {
      await stop();
      await runtime.close();
    } finally {
      process.exit(0);
    }
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}
