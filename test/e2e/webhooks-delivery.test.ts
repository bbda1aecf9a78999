// Webhook delivery end to end: real jobs, a real dispatcher, real HTTP receivers on loopback that
// verify every request with the Standard Webhooks reference library. The retry schedule is
// compressed by configuration; nothing mocks time.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startWebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { type Receiver, startReceiver, verifies } from '../support/webhook-receiver.js';

const small = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
const job = { tool: 'rotate', options: { angle: 90 }, files: [small] };
const env = {
  QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
  QUIRE_WEBHOOK_RETRY_SCHEDULE_MS: '0,300,300,300,300',
  QUIRE_WEBHOOK_POLL_MS: '50',
  QUIRE_WEBHOOK_TIMEOUT_MS: '3000',
};

interface Delivery {
  id: string;
  status: string;
  attempts: { status_code: number | null; error_class: string | null; latency_ms: number }[];
}

async function register(client: Client, url: string, events: string[]) {
  const response = await client.fetch('/api/v1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, events }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; secret: string };
}

async function deliveries(client: Client, endpointId: string): Promise<Delivery[]> {
  return (
    (await (await client.fetch(`/api/v1/webhooks/${endpointId}/deliveries`)).json()) as { data: Delivery[] }
  ).data;
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('webhook delivery', () => {
  let server: TestServer;
  const receivers: Receiver[] = [];
  const seen: string[] = [];
  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };
  const account = async () => new Client(server.url, (await server.newAccount()).key);

  beforeAll(async () => {
    // The server's own dispatcher, started with its workers as `quire serve` starts it, delivers.
    server = await startTestServer(env);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await server.close();
  });

  test('a job’s lifecycle arrives as verified job.created, job.processing, job.succeeded', async () => {
    const client = await account();
    const hooks = await receiver();
    const endpoint = await register(client, hooks.url, ['*']);
    hooks.secrets = [endpoint.secret];
    const done = await client.run(job);
    expect(done.status).toBe('succeeded');
    const received = await hooks.waitFor(3);
    const bodies = received.map((d) => JSON.parse(d.body.toString('utf8')));
    expect(bodies.map((b) => b.type).sort()).toEqual(['job.created', 'job.processing', 'job.succeeded']);
    expect(received.every((d) => d.verified)).toBe(true);
    const succeeded = bodies.find((b) => b.type === 'job.succeeded');
    expect(succeeded.data).toMatchObject({ id: done.id, object: 'job', status: 'succeeded' });
    expect(succeeded.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(new Set(received.map((d) => d.id)).size).toBe(3);
    expect(received[0]?.headers['content-type']).toBe('application/json');
    seen.push(
      endpoint.secret,
      ...received.map((d) => d.signature),
      ...received.map((d) => d.body.toString()),
    );
  });

  test('500 three times then 200: the same webhook-id four times, fresh timestamps, valid signatures', async () => {
    const client = await account();
    const hooks = await receiver();
    hooks.answer = (n) => ({ status: n <= 3 ? 500 : 200 });
    const endpoint = await register(client, hooks.url, ['job.created']);
    hooks.secrets = [endpoint.secret];
    await client.submit(job);
    const received = await hooks.waitFor(4);
    expect(new Set(received.map((d) => d.id)).size).toBe(1);
    expect(received[0]?.id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(received.every((d) => d.verified)).toBe(true);
    // Each attempt is signed anew: the signature changes whenever the timestamp does.
    for (let i = 1; i < 4; i++) expect(received[i]!.at - received[i - 1]!.at).toBeGreaterThanOrEqual(200);
    expect(received.every((d) => d.body.equals(received[0]!.body))).toBe(true);
    const [delivery] = await until(
      () => deliveries(client, endpoint.id),
      (d) => d[0]?.status === 'succeeded',
    );
    expect(delivery?.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 200]);
    expect(delivery?.attempts.map((a) => a.error_class)).toEqual([
      'http_status',
      'http_status',
      'http_status',
      null,
    ]);
    await new Promise((r) => setTimeout(r, 500));
    expect(hooks.received).toHaveLength(4);
    seen.push(endpoint.secret, ...received.map((d) => d.signature));
  });

  test('410 disables the endpoint and logs webhook.endpoint_disabled', async () => {
    const client = await account();
    const hooks = await receiver();
    hooks.answer = () => ({ status: 410 });
    const endpoint = await register(client, hooks.url, ['job.created']);
    hooks.secrets = [endpoint.secret];
    await client.submit(job);
    const disabled = await until(
      async () =>
        (await (await client.fetch(`/api/v1/webhooks/${endpoint.id}`)).json()) as Record<string, string>,
      (e) => e.status === 'disabled',
    );
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    const line = server.logs.find((l) => l.includes('webhook.endpoint_disabled') && l.includes(endpoint.id));
    expect(line).toBeDefined();
    // Nothing more goes to a disabled endpoint, and retrying is refused until it is re-enabled.
    await client.submit(job);
    await new Promise((r) => setTimeout(r, 500));
    expect(hooks.received).toHaveLength(1);
    const [delivery] = await deliveries(client, endpoint.id);
    const retry = await client.fetch(`/api/v1/webhooks/${endpoint.id}/deliveries/${delivery!.id}/retry`, {
      method: 'POST',
    });
    expect(retry.status).toBe(409);
    seen.push(endpoint.secret);
  });

  test('a 302 is a failure and its target sees nothing', async () => {
    const client = await account();
    const target = await receiver();
    const hooks = await receiver();
    hooks.answer = () => ({ status: 302, headers: { location: target.url } });
    const endpoint = await register(client, hooks.url, ['job.created']);
    hooks.secrets = [endpoint.secret];
    await client.submit(job);
    const [delivery] = await until(
      () => deliveries(client, endpoint.id),
      (d) => (d[0]?.attempts.length ?? 0) >= 2,
    );
    expect(delivery?.status).not.toBe('succeeded');
    expect(delivery?.attempts[0]).toMatchObject({ status_code: 302, error_class: 'redirect' });
    expect(target.received).toHaveLength(0);
    await client.fetch(`/api/v1/webhooks/${endpoint.id}`, { method: 'DELETE' });
    seen.push(endpoint.secret);
  });

  test('during a rotation both signatures are sent and each verifies with its own secret', async () => {
    const client = await account();
    const hooks = await receiver();
    const endpoint = await register(client, hooks.url, ['job.created']);
    const rotated = (await (
      await client.fetch(`/api/v1/webhooks/${endpoint.id}/rotate-secret`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { secret: string };
    hooks.secrets = [rotated.secret];
    await client.submit(job);
    const [delivery] = await hooks.waitFor(1);
    const signatures = delivery!.signature.split(' ');
    expect(signatures).toHaveLength(2);
    const only = (signature: string) => ({ ...delivery!.headers, 'webhook-signature': signature });
    expect(verifies(rotated.secret, delivery!.body, only(signatures[0]!))).toBe(true);
    expect(verifies(endpoint.secret, delivery!.body, only(signatures[1]!))).toBe(true);
    expect(verifies(endpoint.secret, delivery!.body, only(signatures[0]!))).toBe(false);
    // Each secret alone accepts the two-signature header, as a receiver mid-rotation needs.
    expect(verifies(endpoint.secret, delivery!.body, delivery!.headers)).toBe(true);
    expect(delivery!.verified).toBe(true);
    seen.push(endpoint.secret, rotated.secret, ...signatures);
  });

  test('manual retry re-sends a delivered message with the same webhook-id', async () => {
    const client = await account();
    const hooks = await receiver();
    const endpoint = await register(client, hooks.url, ['job.created']);
    hooks.secrets = [endpoint.secret];
    await client.submit(job);
    const [first] = await hooks.waitFor(1);
    const [delivery] = await until(
      () => deliveries(client, endpoint.id),
      (d) => d[0]?.status === 'succeeded',
    );
    const retry = await client.fetch(`/api/v1/webhooks/${endpoint.id}/deliveries/${delivery!.id}/retry`, {
      method: 'POST',
    });
    expect(retry.status).toBe(202);
    const [, second] = await hooks.waitFor(2);
    expect(second!.id).toBe(first!.id);
    expect(second!.verified).toBe(true);
    seen.push(endpoint.secret);
  });

  test('no secret, signature or payload body appears in the logs', () => {
    const secretParts = seen.filter((s) => s.startsWith('whsec_')).map((s) => s.slice(6, 30));
    const signatures = seen.filter((s) => s.startsWith('v1,')).map((s) => s.slice(3));
    const all = server.logs.join('\n');
    expect(all).toContain('webhook delivered');
    for (const needle of [...secretParts, ...signatures]) expect(all).not.toContain(needle);
    expect(all).not.toContain('whsec_');
    expect(all).not.toContain('"type":"job.');
    expect(all).not.toContain('"data":{');
  });
});

describe('connect-time address guard', () => {
  test('an endpoint registered while private targets were allowed is blocked when delivering', async () => {
    // Registration through a server that allows private targets, deliveries by a dispatcher that does not.
    const server = await startTestServer(env, { workers: false });
    const guarded = { ...server.runtime.config.webhooks, allowPrivate: false };
    const dispatcher = startWebhookDispatcher({
      ...server.runtime,
      config: { webhooks: guarded },
      webhooks: server.runtime.db.webhooks,
    });
    const hooks = await startReceiver();
    try {
      const client = new Client(server.url, (await server.newAccount()).key);
      const byName = await register(client, `http://localhost:${hooks.port}/hooks`, ['job.created']);
      const byAddress = await register(client, hooks.url, ['job.created']);
      await client.submit(job);
      for (const endpoint of [byName, byAddress]) {
        const [delivery] = await until(
          () => deliveries(client, endpoint.id),
          (d) => (d[0]?.attempts.length ?? 0) >= 1,
        );
        expect(delivery?.attempts[0]).toMatchObject({ status_code: null, error_class: 'blocked_address' });
      }
      expect(hooks.received).toHaveLength(0);
    } finally {
      await dispatcher.stop();
      await hooks.close();
      await server.close();
    }
  });
});
