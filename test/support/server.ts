// A real Quire server for end-to-end tests: the wiring `quire serve` runs (`listen` + `startWork`) on
// real SQLite in a temp dir, real local blobs and real engines, with every log line captured.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ulid } from 'ulid';
import { createKey } from '../../src/auth/issue-key.js';
import { openRuntime, type Runtime, type RuntimeExtras } from '../../src/cli/runtime.js';
import { listen, startWork } from '../../src/cli/serve.js';
import { loadConfig } from '../../src/config/config.js';
import { allScopes, type Scope } from '../../src/model/account.js';
import { createLogger } from '../../src/observability/logger.js';
import { type PgTestServer, startPostgresServer } from './pg-server.js';

/** The production runtime on a throwaway data dir, with helpers to make accounts and keys. */
export interface TestRuntime {
  runtime: Runtime;
  /** Every log line written so far (raw JSON text). */
  logs: string[];
  dataDir: string;
  /** A new account with a key holding `scopes` (all by default). */
  newAccount(scopes?: Scope[]): Promise<{ accountId: string; key: string }>;
  keyFor(accountId: string, scopes: Scope[]): Promise<string>;
  close(): Promise<void>;
}

export interface TestServer extends TestRuntime {
  url: string;
}

export interface TestOptions {
  /** false: the API alone (jobs stay queued), for HTTP behaviour that must not race a worker. */
  workers?: boolean;
  /** The fault-injection tier's fake engine and tool, registered like the real ones. */
  extras?: RuntimeExtras;
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

/** `openRuntime` as `quire serve` calls it, with test settings under `env` and logs captured. */
export async function openTestRuntime(
  env: Record<string, string> = {},
  extras?: RuntimeExtras,
): Promise<TestRuntime> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'quire-test-'));
  const config = loadConfig({
    ...(await postgresIfAsked()),
    QUIRE_DATA_DIR: dataDir,
    QUIRE_HOST: '127.0.0.1',
    QUIRE_PORT: '0',
    QUIRE_LOG_LEVEL: 'debug',
    QUIRE_WORKER_CONCURRENCY: '2',
    QUIRE_SWEEP_INTERVAL_MS: '500',
    ...env,
  });
  const logs: string[] = [];
  // Debug unless a test asks for QUIRE_LOG_LEVEL (the trace-level privacy scan does).
  const level = env.QUIRE_LOG_LEVEL ?? 'debug';
  const runtime = await openRuntime(config, createLogger(level, logSink(logs)), extras);
  const keyFor = async (accountId: string, scopes: Scope[]) =>
    (await createKey(runtime, accountId, 'test', scopes)).key;
  return {
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
      await runtime.close();
      // Retried: the blob store's pool thread may still be making its next file ahead (local-ahead.ts).
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
    },
  };
}

export async function startTestServer(
  env: Record<string, string> = {},
  options: TestOptions = {},
): Promise<TestServer> {
  const base = await openTestRuntime(env, options.extras);
  // One second for in-flight requests: a test that left a long-poll open should not hold the run.
  const http = await listen(base.runtime, 1_000);
  const stopWork = options.workers === false ? undefined : startWork(base.runtime);
  return {
    ...base,
    url: `http://127.0.0.1:${http.port}`,
    async close() {
      await http.stop();
      await stopWork?.();
      await base.close();
    },
  };
}

function logSink(lines: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
}
