// verifyWebhook against real deliveries from a running Quire: a registered endpoint (through the SDK)
// receives the job's events; the SDK accepts them as sent and refuses a tampered body, a wrong
// secret and a timestamp older than five minutes. The per-job webhook_url's deliveries too.

import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Quire, QuireError, verifyWebhook } from '../../../clients/typescript/src/index.js';
import { corpusFile } from '../../support/corpus.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.js';

let server: TestServer;
let receiver: Receiver;
let quire: Quire;

beforeAll(async () => {
  server = await startTestServer({ QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true', QUIRE_WEBHOOK_POLL_MS: '100' });
  receiver = await startReceiver();
  quire = new Quire({ url: server.url, apiKey: (await server.newAccount()).key });
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const headersOf = (d: Receiver['received'][number]) => d.headers;

describe('verifyWebhook', () => {
  it('accepts a real delivery and returns the typed event; refuses a tampered body, a wrong secret and an old timestamp', async () => {
    const endpoint = await quire.webhooks.create({ url: receiver.url, events: ['job.succeeded'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    const { job } = await quire.run('rotate', [corpusFile('pypdf-samples__pdflatex-4-pages.pdf')], {
      angle: 90,
    });
    const [delivery] = await receiver.waitFor(1);
    if (!delivery) throw new Error('no delivery');

    const event = verifyWebhook(delivery.body, headersOf(delivery), endpoint.secret);
    expect(event.type).toBe('job.succeeded');
    expect(event.data.id).toBe(job.id);
    // Fetch-style Headers and a string body work too.
    const fetchHeaders = new Headers(
      Object.entries(delivery.headers).map(([k, v]) => [k, String(v)] as [string, string]),
    );
    expect(verifyWebhook(delivery.body.toString('utf8'), fetchHeaders, endpoint.secret).type).toBe(
      'job.succeeded',
    );

    const tampered = Buffer.from(delivery.body.toString('utf8').replace('"succeeded"', '"failed"'));
    expect(() => verifyWebhook(tampered, headersOf(delivery), endpoint.secret)).toThrow(QuireError);
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => verifyWebhook(delivery.body, headersOf(delivery), other)).toThrow(/signature/i);

    // The same body signed correctly by the right secret, but six minutes ago.
    const old = new Date(Date.now() - 6 * 60_000);
    const signature = new Webhook(endpoint.secret).sign(delivery.id, old, delivery.body.toString('utf8'));
    const stale = {
      ...delivery.headers,
      'webhook-timestamp': String(Math.floor(old.getTime() / 1000)),
      'webhook-signature': signature,
    };
    const error = (() => {
      try {
        verifyWebhook(delivery.body, stale, endpoint.secret);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toMatchObject({ code: 'webhook_verification_failed' });
    expect((error as Error).message).toMatch(/timestamp too old/i);

    const deliveries = await quire.webhooks.deliveries(endpoint.id);
    expect(deliveries.data.length).toBeGreaterThan(0);
    await quire.webhooks.delete(endpoint.id);
  }, 60_000);

  it('verifies a per-job webhookUrl delivery with the job webhook secret', async () => {
    const { secret } = await quire.webhooks.jobSecret();
    const before = receiver.received.length;
    const job = await quire.jobs.create({
      tool: 'rotate',
      options: { angle: 180 },
      inputs: [corpusFile('pypdf-samples__pdflatex-4-pages.pdf')],
      webhookUrl: `${receiver.url}?job`,
    });
    const deliveries = await receiver.waitFor(before + 1);
    const delivery = deliveries.at(-1);
    if (!delivery) throw new Error('no delivery');
    const event = verifyWebhook(delivery.body, delivery.headers, secret);
    expect(event).toMatchObject({ type: 'job.succeeded', data: { id: job.id } });
  }, 60_000);
});
