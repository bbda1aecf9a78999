// The webhook endpoint API over real HTTP: management, scopes and account isolation, secrets shown
// once (and never replayed from storage), and the SSRF guard at registration.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PUBLIC_URL = 'http://93.184.215.14/quire-hooks';

function post(client: Client, path: string, body: unknown, headers: Record<string, string> = {}) {
  return client.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('webhook endpoints API', () => {
  let server: TestServer;
  let alice: Client;
  let bob: Client;

  beforeAll(async () => {
    server = await startTestServer({}, { workers: false });
    alice = new Client(server.url, (await server.newAccount()).key);
    bob = new Client(server.url, (await server.newAccount()).key);
  });
  afterAll(() => server.close());

  test('create answers 201 with the secret once; reads never show it', async () => {
    const response = await post(alice, '/api/v1/webhooks', { url: PUBLIC_URL, events: ['job.succeeded'] });
    expect(response.status).toBe(201);
    const created = (await response.json()) as Record<string, unknown>;
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      url: PUBLIC_URL,
      status: 'enabled',
      description: '',
    });
    expect(created.id).toMatch(/^whe_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(response.headers.get('location')).toBe(`/api/v1/webhooks/${created.id}`);

    const read = await (await alice.fetch(`/api/v1/webhooks/${created.id}`)).json();
    expect(read).toMatchObject({ id: created.id, events: ['job.succeeded'] });
    expect(read).not.toHaveProperty('secret');
    const list = (await (await alice.fetch('/api/v1/webhooks')).json()) as { data: { id: string }[] };
    expect(list.data.map((e) => e.id)).toContain(created.id);
    expect(JSON.stringify(list)).not.toContain(String(created.secret));
  });

  test('a replayed create returns the stored response without the secret', async () => {
    const body = { url: PUBLIC_URL, events: ['*'], description: 'replay' };
    const headers = { 'idempotency-key': 'webhook-create-1' };
    const first = (await (await post(alice, '/api/v1/webhooks', body, headers)).json()) as {
      id: string;
      secret: string;
    };
    const replay = await post(alice, '/api/v1/webhooks', body, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const replayed = (await replay.json()) as { id: string; secret: string };
    expect(replayed.id).toBe(first.id);
    expect(replayed.secret).toBe('[redacted]');
  });

  test('PATCH changes events and status; DELETE removes; another account sees 404', async () => {
    const { id } = (await (
      await post(alice, '/api/v1/webhooks', { url: PUBLIC_URL, events: ['*'] })
    ).json()) as {
      id: string;
    };
    const patch = (client: Client, body: unknown) =>
      client.fetch(`/api/v1/webhooks/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const changed = await patch(alice, { events: ['job.failed', 'job.canceled'], status: 'disabled' });
    expect(await changed.json()).toMatchObject({
      events: ['job.failed', 'job.canceled'],
      status: 'disabled',
      disabled_reason: 'manual',
    });
    expect(await (await patch(alice, { status: 'enabled' })).json()).toMatchObject({ status: 'enabled' });
    expect((await patch(alice, { events: ['job.unknown'] })).status).toBe(400);

    for (const path of [`/api/v1/webhooks/${id}`, `/api/v1/webhooks/${id}/deliveries`]) {
      expect((await bob.fetch(path)).status).toBe(404);
    }
    expect((await patch(bob, { description: 'x' })).status).toBe(404);
    expect((await post(bob, `/api/v1/webhooks/${id}/rotate-secret`, {})).status).toBe(404);
    expect((await bob.fetch(`/api/v1/webhooks/${id}`, { method: 'DELETE' })).status).toBe(404);

    expect((await alice.fetch(`/api/v1/webhooks/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await alice.fetch(`/api/v1/webhooks/${id}`)).status).toBe(404);
  });

  test('rotate-secret returns a new secret and the old one’s expiry', async () => {
    const created = (await (
      await post(alice, '/api/v1/webhooks', { url: PUBLIC_URL, events: ['*'] })
    ).json()) as {
      id: string;
      secret: string;
    };
    const rotated = (await (
      await post(alice, `/api/v1/webhooks/${created.id}/rotate-secret`, {})
    ).json()) as Record<string, string>;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    const expires = Date.parse(rotated.previous_secret_expires_at!);
    expect(Math.abs(expires - Date.now() - 86_400_000)).toBeLessThan(60_000);
  });

  test('refuses grace_period_seconds: null on both rotations (400), rotating nothing', async () => {
    const created = (await (
      await post(alice, '/api/v1/webhooks', { url: PUBLIC_URL, events: ['*'] })
    ).json()) as { id: string; secret: string };
    for (const path of [
      `/api/v1/webhooks/${created.id}/rotate-secret`,
      '/api/v1/job-webhook-secret/rotate',
    ]) {
      const response = await post(alice, path, { grace_period_seconds: null });
      expect(response.status, path).toBe(400);
      expect(await response.json()).toMatchObject({
        code: 'invalid_request',
        errors: [{ pointer: '/grace_period_seconds', detail: 'must be integer' }],
      });
    }
    const read = (await (await alice.fetch(`/api/v1/webhooks/${created.id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(read.previous_secret_expires_at ?? null).toBeNull();
  });

  test('needs the webhooks:manage scope', async () => {
    const { accountId } = await server.newAccount();
    const reader = new Client(server.url, await server.keyFor(accountId, ['jobs:read', 'jobs:write']));
    const response = await reader.fetch('/api/v1/webhooks');
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      code: 'insufficient_scope',
      required_scope: 'webhooks:manage',
    });
  });

  test.each([
    'http://127.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:10.0.0.1]/',
    'http://localhost:8080/hooks',
    'http://2130706433/',
    'http://[fd00:ec2::254]/',
    'http://100.64.1.1/',
    'http://10.1.2.3/',
    'ftp://example.com/',
    'not a url',
  ])('refuses %s with 400', async (url) => {
    const response = await post(alice, '/api/v1/webhooks', { url, events: ['*'] });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { code: string; errors: { pointer: string }[] };
    expect(problem.code).toBe('webhook_url_not_allowed');
    expect(problem.errors[0]?.pointer).toBe('/url');
  });

  test('PATCH to a private URL is refused too', async () => {
    const { id } = (await (
      await post(alice, '/api/v1/webhooks', { url: PUBLIC_URL, events: ['*'] })
    ).json()) as {
      id: string;
    };
    const response = await alice.fetch(`/api/v1/webhooks/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://192.168.0.1/' }),
    });
    expect(response.status).toBe(400);
  });
});

describe('with QUIRE_WEBHOOKS_ALLOW_PRIVATE=true', () => {
  test('loopback and private targets may be registered', async () => {
    const server = await startTestServer({ QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true' }, { workers: false });
    try {
      const client = new Client(server.url, (await server.newAccount()).key);
      for (const url of ['http://127.0.0.1/', 'http://localhost:9/x', 'http://2130706433/']) {
        expect((await post(client, '/api/v1/webhooks', { url, events: ['*'] })).status).toBe(201);
      }
    } finally {
      await server.close();
    }
  });
});

describe('with QUIRE_WEBHOOK_MAX_ENDPOINTS=2', () => {
  test('a third endpoint is refused with 409 webhook_endpoint_limit_exceeded until one is deleted', async () => {
    const server = await startTestServer({ QUIRE_WEBHOOK_MAX_ENDPOINTS: '2' }, { workers: false });
    try {
      const client = new Client(server.url, (await server.newAccount()).key);
      const other = new Client(server.url, (await server.newAccount()).key);
      const create = (c: Client) => post(c, '/api/v1/webhooks', { url: PUBLIC_URL, events: ['*'] });
      const first = (await (await create(client)).json()) as { id: string };
      expect((await create(client)).status).toBe(201);
      const refused = await create(client);
      expect(refused.status).toBe(409);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await refused.json()).toMatchObject({
        code: 'webhook_endpoint_limit_exceeded',
        max_endpoints: 2,
      });
      expect((await create(other)).status).toBe(201);
      expect((await client.fetch(`/api/v1/webhooks/${first.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await create(client)).status).toBe(201);
    } finally {
      await server.close();
    }
  });
});
