// The admin account API over real HTTP (docs/api.md §1 `admin`, §5 plans): accounts, their plan and
// their keys; a plan change applies to the account's very next request. Also `quire accounts`.
import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { defaultPlans, planView } from '../../src/config/plans.js';
import { Client } from '../support/client.js';
import { repoRoot } from '../support/corpus.js';
import { startTestServer } from '../support/server.js';
import { useTestServer } from '../support/use-test-server.js';

// The first account's key holds the admin scope alone.
const quire = useTestServer({}, { workers: false, scopes: ['admin'] });

const json = (body: unknown) => ({
  method: 'POST',
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});

describe('accounts API', () => {
  it('creates an account on a plan, issues a key under it, and a plan change applies at once', async () => {
    const created = await quire.client.fetch('/api/v1/accounts', json({ name: 'Acme', plan: 'free' }));
    expect(created.status).toBe(201);
    const account = (await created.json()) as { id: string };
    expect(created.headers.get('location')).toBe(`/api/v1/accounts/${account.id}`);
    expect(account).toMatchObject({
      object: 'account',
      name: 'Acme',
      plan: 'free',
      limits: { name: 'free' },
    });

    const keyResponse = await quire.client.fetch(
      `/api/v1/accounts/${account.id}/keys`,
      json({ name: 'ci', scopes: ['jobs:read', 'jobs:write'] }),
    );
    expect(keyResponse.status).toBe(201);
    const key = (await keyResponse.json()) as { id: string; key: string; key_id: string };
    expect(key).toMatchObject({ object: 'api_key', account: account.id, status: 'active', mode: 'live' });
    expect(key.key).toMatch(/^qk_live_/);
    const user = new Client(quire.server.url, key.key);
    const planOf = async () =>
      ((await (await user.fetch('/api/v1/tools')).json()) as { limits: { plan: string } }).limits.plan;
    expect(await planOf()).toBe('free');

    const patched = await quire.client.fetch(`/api/v1/accounts/${account.id}`, {
      ...json({ plan: 'pro' }),
      method: 'PATCH',
    });
    expect(await patched.json()).toMatchObject({ plan: 'pro' });
    expect(await planOf()).toBe('pro');
    expect((await user.fetch('/api/v1/tools')).headers.get('ratelimit-policy')).toBe('"default";q=600;w=60');

    const listed = (await (await quire.client.fetch(`/api/v1/accounts/${account.id}/keys`)).json()) as {
      data: Array<Record<string, unknown>>;
    };
    expect(listed.data.map((k) => k.id)).toEqual([key.id]);
    expect(JSON.stringify(listed)).not.toContain(key.key);

    const revoked = await quire.client.fetch(`/api/v1/accounts/${account.id}/keys/${key.id}`, {
      method: 'DELETE',
    });
    expect(revoked.status).toBe(204);
    expect((await user.fetch('/api/v1/tools')).status).toBe(401);
  });

  it('refuses an unknown plan, unknown accounts and keys without the admin scope', async () => {
    const bad = await quire.client.fetch('/api/v1/accounts', json({ name: 'X', plan: 'platinum' }));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_request', errors: [{ pointer: '/plan' }] });
    expect((await quire.client.fetch('/api/v1/accounts/acct_nope')).status).toBe(404);
    const notAdmin = new Client(quire.server.url, (await quire.server.newAccount(['jobs:read'])).key);
    const forbidden = await notAdmin.fetch('/api/v1/accounts');
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ required_scope: 'admin' });
  });

  it('a replayed key creation does not show the secret again', async () => {
    const account = (await (
      await quire.client.fetch('/api/v1/accounts', json({ name: 'Replay' }))
    ).json()) as {
      id: string;
      plan: string;
    };
    expect(account.plan).toBe('free');
    const create = () =>
      quire.client.fetch(`/api/v1/accounts/${account.id}/keys`, {
        ...json({ scopes: ['jobs:read'] }),
        headers: { 'content-type': 'application/json', 'idempotency-key': 'key-1' },
      });
    const first = (await (await create()).json()) as { id: string; key: string };
    const again = await create();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toMatchObject({ id: first.id, key: '[redacted]' });
    const keys = (await (await quire.client.fetch(`/api/v1/accounts/${account.id}/keys`)).json()) as {
      data: unknown[];
    };
    expect(keys.data).toHaveLength(1);
  });
});

describe('quire accounts', () => {
  it('creates, lists and moves accounts between plans, refusing unknown plans', async () => {
    const run = promisify(execFile);
    const env = { ...process.env, QUIRE_DATA_DIR: quire.server.dataDir, QUIRE_LOG_LEVEL: 'warn' };
    const cli = (...args: string[]) =>
      run(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), ...args], { env });
    const id = (await cli('accounts', 'create', '--name', 'cli', '--plan', 'pro')).stdout.trim();
    expect(id).toMatch(/^acct_/);
    expect((await cli('accounts', 'list')).stdout).toContain(`${id}\tpro\t`);
    await cli('accounts', 'set-plan', id, 'business');
    expect((await quire.server.runtime.db.accounts.getAccount(id))?.plan).toBe('business');
    await expect(cli('accounts', 'set-plan', id, 'platinum')).rejects.toThrow(/no plan "platinum"/);
  });
});

describe('plan names in /openapi.json', () => {
  it('lists exactly the configured plans as the enum of plan on create and update; an unknown plan is 400 with /plan', async () => {
    // A plan of this server's own beside the built-in three, so the enum cannot be a fixed list.
    const file = path.join(os.tmpdir(), `quire-plans-${process.pid}.json`);
    await writeFile(file, JSON.stringify({ team: { ...planView(defaultPlans.free!), name: undefined } }));
    const own = await startTestServer({ QUIRE_PLANS_FILE: file }, { workers: false });
    try {
      const document = (await (await fetch(`${own.url}/openapi.json`)).json()) as {
        paths: Record<
          string,
          Record<string, { requestBody: { content: Record<string, { schema: unknown }> } }>
        >;
      };
      const planEnum = (route: string, method: string) =>
        (
          document.paths[route]![method]!.requestBody.content['application/json']!.schema as {
            properties: { plan: { enum: string[] } };
          }
        ).properties.plan.enum;
      const configured = Object.keys(own.runtime.config.plans).sort();
      expect(configured).toEqual(['business', 'free', 'pro', 'team']);
      expect([...planEnum('/api/v1/accounts', 'post')].sort()).toEqual(configured);
      expect([...planEnum('/api/v1/accounts/{id}', 'patch')].sort()).toEqual(configured);

      const owner = new Client(own.url, (await own.newAccount(['admin'])).key);
      const created = await owner.fetch('/api/v1/accounts', json({ name: 'Team', plan: 'team' }));
      expect(created.status, await created.clone().text()).toBe(201);
      const { id } = (await created.json()) as { id: string };
      for (const response of [
        await owner.fetch('/api/v1/accounts', json({ name: 'X', plan: 'platinum' })),
        await owner.fetch(`/api/v1/accounts/${id}`, { ...json({ plan: 'platinum' }), method: 'PATCH' }),
      ]) {
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({
          code: 'invalid_request',
          errors: [{ pointer: '/plan' }],
        });
      }
    } finally {
      await own.close();
      await rm(file, { force: true });
    }
  });
});
