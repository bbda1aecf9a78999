// Crash safety of webhook delivery with the real CLI: the process is killed with SIGKILL while the
// first attempt of an event is in flight; after a restart the event is still delivered (at least
// once) with the same webhook-id, because the message and its lease live in the database.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, freePort, readInitialKey, startCli, waitForReady } from '../support/cli-process.js';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

describe('webhook delivery across kill -9', () => {
  let dataDir: string;
  let port: number;
  let cli: CliProcess | undefined;
  let hooks: Receiver;
  const start = async () => {
    cli = startCli(['serve'], {
      QUIRE_DATA_DIR: dataDir,
      QUIRE_PORT: String(port),
      QUIRE_LOG_LEVEL: 'warn',
      QUIRE_WORKER_CONCURRENCY: '1',
      QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      // The lease on an attempt is twice this: the restarted process takes the message over after 4 s.
      QUIRE_WEBHOOK_TIMEOUT_MS: '2000',
      QUIRE_WEBHOOK_POLL_MS: '100',
      QUIRE_WEBHOOK_RETRY_SCHEDULE_MS: '0,500,500,500',
    });
    await waitForReady(`http://127.0.0.1:${port}`);
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'quire-webhook-crash-'));
    port = await freePort();
    hooks = await startReceiver();
  });
  afterAll(async () => {
    await cli?.kill9();
    await hooks.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers the event after a restart with the same webhook-id', async () => {
    await start();
    const client = new Client(`http://127.0.0.1:${port}`, await readInitialKey(dataDir));
    const created = await client.fetch('/api/v1/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: hooks.url, events: ['job.created'] }),
    });
    const endpoint = (await created.json()) as { id: string; secret: string };
    hooks.secrets = [endpoint.secret];
    // The first attempt hangs, so the process dies with the delivery in flight and unrecorded.
    hooks.answer = (n) => (n === 1 ? { status: 200, delayMs: 60_000 } : { status: 200 });
    const job = await client.submit({
      tool: 'rotate',
      options: { angle: 90 },
      files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
    });
    const [first] = await hooks.waitFor(1);
    await cli!.kill9();

    await start();
    const [, second] = await hooks.waitFor(2, 30_000);
    expect(second!.id).toBe(first!.id);
    expect(second!.timestamp >= first!.timestamp).toBe(true);
    expect(second!.verified && first!.verified).toBe(true);
    expect(JSON.parse(second!.body.toString('utf8'))).toMatchObject({
      type: 'job.created',
      data: { id: job.id },
    });
    const list = await client.fetch(`/api/v1/webhooks/${endpoint.id}/deliveries`);
    const [delivery] = ((await list.json()) as { data: { status: string; attempt_count: number }[] }).data;
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  });
});
