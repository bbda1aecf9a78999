// The set-up most end-to-end files share, written once: a real server (test/support/server.ts) started
// before the tests of the file or describe block that calls useTestServer, with a fresh account and a
// client holding its key, and closed after them. Kept apart from server.ts, which the benchmarks import
// outside vitest.
import { ulid } from 'ulid';
import { afterAll, beforeAll } from 'vitest';
import type { Scope } from '../../src/model/account.js';
import { Client } from './client.js';
import { startTestServer, type TestOptions, type TestServer } from './server.js';

export interface UseTestServerOptions extends TestOptions {
  /** The scopes of the first account's key: all by default. */
  scopes?: Scope[];
  /** The start's hook timeout, for a server whose engine pools start slowly on a busy machine. */
  timeoutMs?: number;
}

/** What useTestServer started; read it inside tests and hooks that run after its beforeAll. */
export interface UsedTestServer {
  readonly server: TestServer;
  /** A client with the key of the account made at start. */
  readonly client: Client;
  readonly key: string;
  readonly accountId: string;
  /** A client for a new account on `plan`, its key holding `scopes` (jobs by default). */
  clientOn(plan: string, scopes?: Scope[]): Promise<Client>;
}

export function useTestServer(
  env: Record<string, string> = {},
  options: UseTestServerOptions = {},
): UsedTestServer {
  let server: TestServer | undefined;
  let started: UsedTestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(env, options);
    const { accountId, key } = await server.newAccount(options.scopes);
    const on = server;
    const clientOn = async (plan: string, scopes: Scope[] = ['jobs:read', 'jobs:write']) => {
      const id = `acct_${plan}_${ulid()}`;
      await on.runtime.db.accounts.createAccount({ id, name: plan, plan, createdAt: Date.now() });
      return new Client(on.url, await on.keyFor(id, scopes));
    };
    started = { server, client: new Client(server.url, key), key, accountId, clientOn };
  }, options.timeoutMs);
  // Optional: when the start itself failed, its error is the one to see, not a second one here.
  afterAll(() => server?.close());
  const get = (): UsedTestServer => {
    if (!started) throw new Error('useTestServer: read before its beforeAll ran (or after it failed)');
    return started;
  };
  return {
    get server() {
      return get().server;
    },
    get client() {
      return get().client;
    },
    get key() {
      return get().key;
    },
    get accountId() {
      return get().accountId;
    },
    clientOn: (plan, scopes) => get().clientOn(plan, scopes),
  };
}
