// A real Quire server for end-to-end tests: real SQLite in a temp dir, real local blobs, real engines,
// listening on a real port, with every log line captured for privacy assertions.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ulid } from 'ulid';
import { createKey } from '../../src/auth/issue-key.js';
import { openRuntime, type Runtime, type RuntimeExtras } from '../../src/cli/runtime.js';
import { loadConfig } from '../../src/config/config.js';
import { buildApp, closeApp } from '../../src/http/app.js';
import { startSweeper } from '../../src/jobs/sweeper.js';
import { startWorkers, type Workers } from '../../src/jobs/worker.js';
import { allScopes, type Scope } from '../../src/model/account.js';
import { createLogger } from '../../src/observability/logger.js';
import { type PgTestServer, startPostgresServer } from './pg-server.js';

export interface TestServer {
  url: string;
  runtime: Runtime;
  /** Every log line written so far (raw JSON text). */
  logs: string[];
  dataDir: string;
  /** A new account with a key holding `scopes` (all by default). */
  newAccount(scopes?: Scope[]): Promise<{ accountId: string; key: string }>;
  keyFor(accountId: string, scopes: Scope[]): Promise<string>;
  close(): Promise<void>;
}

let postgres: Promise<PgTestServer> | undefined;

/**
 * `QUIRE_TEST_POSTGRES=1 npx vitest run test/e2e/…` runs the in-process servers of any e2e file on
 * PostgreSQL instead of SQLite: one throwaway cluster per test worker, a fresh schema per server.
 * (CI runs the conformance suites and the multi-process tests on PostgreSQL; this is for sweeps.)
 */
async function postgresIfAsked(): Promise<Record<string, string>> {
  if (process.env.QUIRE_TEST_POSTGRES !== '1') return {};
  postgres ??= startPostgresServer();
  return { QUIRE_DATABASE_URL: await (await postgres).createSchema() };
}

export async function startTestServer(
  env: Record<string, string> = {},
  /** `extras`: the fault-injection tier's fake engine and tool, registered like the real ones. */
  options: { workers?: boolean; extras?: RuntimeExtras } = {},
): Promise<TestServer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'quire-test-'));
  const config = loadConfig({
    ...(await postgresIfAsked()),
    QUIRE_DATA_DIR: dataDir,
    QUIRE_PORT: '0',
    QUIRE_LOG_LEVEL: 'debug',
    QUIRE_WORKER_CONCURRENCY: '2',
    QUIRE_SWEEP_INTERVAL_MS: '500',
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  const runtime = await openRuntime(config, createLogger('debug', sink), options.extras);
  const app = await buildApp(runtime);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let workers: Workers | undefined;
  let sweeper: { stop(): void } | undefined;
  if (options.workers !== false) {
    workers = startWorkers({ ...runtime, jobs: runtime.db.jobs });
    sweeper = startSweeper({
      jobs: runtime.db.jobs,
      blobs: runtime.blobs,
      events: runtime.events,
      logger: runtime.logger,
      intervalMs: config.worker.sweepIntervalMs,
      maxStalls: config.worker.maxStalls,
    });
  }

  const keyFor = async (accountId: string, scopes: Scope[]) =>
    (await createKey(runtime, accountId, 'test', scopes)).key;
  return {
    url: `http://127.0.0.1:${port}`,
    runtime,
    logs,
    dataDir,
    keyFor,
    async newAccount(scopes = [...allScopes]) {
      const account = await runtime.db.accounts.createAccount({
        id: `acct_${ulid()}`,
        name: 'test',
        plan: 'business',
        createdAt: Date.now(),
      });
      return { accountId: account.id, key: await keyFor(account.id, scopes) };
    },
    async close() {
      sweeper?.stop();
      await workers?.stop();
      await closeApp(app, 1_000);
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
