// Batches end to end (docs/api.md §11) over real HTTP, SQLite and engines: 40 files become 40 jobs
// that run within the plan's concurrency while another account's job is not starved, the batch
// reports counts and progress, cancels together, zips its results, and honours Idempotency-Key.
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';

const small = readFileSync(corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface BatchBody {
  id: string;
  status: string;
  total: number;
  counts: Record<string, number>;
  progress: number;
  jobs: Array<{
    id: string;
    status: string;
    batch_id: string;
    input: { files: Array<{ name: string }> };
    webhook?: { host: string };
  }>;
}

function batchForm(count: number, extra: Array<[string, string]> = []): FormData {
  const form = new FormData();
  form.set('tool', 'rotate');
  form.set('options', JSON.stringify({ angle: 90 }));
  form.set('metadata', JSON.stringify({ run: 'batch' }));
  for (const [name, value] of extra) form.append(name, value);
  for (let i = 0; i < count; i++) form.append('file', new Blob([small]), `doc-${i + 1}.pdf`);
  return form;
}

async function createBatch(client: Client, form: FormData, headers: Record<string, string> = {}) {
  const response = await client.fetch('/api/v1/batches', { method: 'POST', body: form, headers });
  const body = (await response.json()) as BatchBody;
  if (response.status !== 201)
    throw new Error(`expected 201, got ${response.status}: ${JSON.stringify(body)}`);
  return { body, response };
}

async function zipEntries(file: string): Promise<Array<{ name: string; size: number }>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true }, (error, z) => (error ? reject(error) : resolve(z!))),
  );
  const entries: Array<{ name: string; size: number }> = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push({ name: entry.fileName, size: entry.uncompressedSize });
      zip.readEntry();
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

describe('batches', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ QUIRE_WORKER_CONCURRENCY: '4' });
  });
  afterAll(() => server?.close());

  it('40 files finish as 40 results within the plan’s 2 concurrent jobs; another account is not starved', async () => {
    const accountId = `acct_free_${Date.now()}`;
    await server.runtime.db.accounts.createAccount({
      id: accountId,
      name: 'f',
      plan: 'free',
      createdAt: Date.now(),
    });
    const client = new Client(
      server.url,
      await server.keyFor(accountId, ['jobs:write', 'jobs:read', 'results:read']),
    );
    const { body: created, response } = await createBatch(client, batchForm(40));
    expect(response.headers.get('location')).toBe(`/api/v1/batches/${created.id}`);
    expect(created.id).toMatch(/^bat_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.total).toBe(40);
    expect(created.jobs.map((j) => j.input.files[0]!.name)).toEqual(
      Array.from({ length: 40 }, (_, i) => `doc-${i + 1}.pdf`),
    );
    expect(new Set(created.jobs.map((j) => j.batch_id))).toEqual(new Set([created.id]));

    const other = await server.newAccount();
    const otherClient = new Client(server.url, other.key);
    const single = await otherClient.submit({
      tool: 'rotate',
      options: { angle: 90 },
      files: [{ name: 'b.pdf', data: small }],
    });

    // Batch jobs already done when the other account's job arrived: a rotate now takes a few ms, so
    // a good part of the batch can end while that account is made and its file uploaded.
    const doneAtSubmit = (await server.runtime.db.batches.listJobs(accountId, created.id)).filter(
      (job) => job.status === 'succeeded',
    ).length;
    let most = 0;
    let samples = 0;
    let otherDoneAfter = -1;
    let succeeded = 0;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; samples++) {
      // Sampled from the store: the free plan's request rate would not allow polling the API this often.
      const jobs = await server.runtime.db.batches.listJobs(accountId, created.id);
      const count = (status: string) => jobs.filter((job) => job.status === status).length;
      most = Math.max(most, count('processing'));
      succeeded = count('succeeded');
      const otherJob = await server.runtime.db.jobs.get(other.accountId, single.id);
      if (otherDoneAfter < 0 && otherJob?.status === 'succeeded') otherDoneAfter = succeeded;
      if (succeeded + count('failed') === 40) break;
      await sleep(5);
    }
    console.log(
      `batch of 40: ${samples} samples, most processing at once ${most}, other account submitted after ${doneAtSubmit}, done after ${otherDoneAfter}`,
    );
    const batch = (await (await client.fetch(`/api/v1/batches/${created.id}`)).json()) as BatchBody;
    expect(batch.status).toBe('completed');
    expect(batch.counts).toEqual({ queued: 0, processing: 0, succeeded: 40, failed: 0, canceled: 0 });
    expect(batch.progress).toBe(100);
    // The loop sampled while the batch ran (with the qpdf forkserver 40 rotates take ~200 ms, some
    // 20 samples); the concurrency seen is what the next line checks.
    expect(samples).toBeGreaterThan(5);
    expect(most).toBe(2);
    // The single job of the other account ran beside the batch, not after it: within a few batch
    // jobs of its arrival (counted from then, not from the batch's start).
    expect(otherDoneAfter).toBeGreaterThanOrEqual(doneAtSubmit);
    expect(otherDoneAfter - doneAtSubmit).toBeLessThan(10);

    const download = await client.fetch(`/api/v1/batches/${created.id}/download`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/zip');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-batch-'));
    const file = path.join(dir, 'batch.zip');
    await writeFile(file, Buffer.from(await download.arrayBuffer()));
    const entries = await zipEntries(file);
    expect(entries).toHaveLength(40);
    expect(entries[0]!.name).toBe('001-doc-1-rotated.pdf');
    expect(new Set(entries.map((e) => e.name)).size).toBe(40);
    expect(entries.every((e) => e.size > 0)).toBe(true);
  }, 180_000);

  it('cancel cancels every active job of the batch', async () => {
    // The API alone: the jobs stay queued, so cancel finds them all active.
    const apiOnly = await startTestServer({}, { workers: false });
    try {
      const client = new Client(apiOnly.url, (await apiOnly.newAccount()).key);
      const { body: created } = await createBatch(client, batchForm(3));
      const canceled = (await (
        await client.fetch(`/api/v1/batches/${created.id}/cancel`, { method: 'POST' })
      ).json()) as BatchBody;
      expect(canceled.counts).toMatchObject({ canceled: 3, queued: 0 });
      expect(canceled.status).toBe('completed');
      expect((await client.fetch(`/api/v1/batches/${created.id}/download`)).status).toBe(409);
    } finally {
      await apiOnly.close();
    }
  });

  it('a webhook_url sent after the files reaches every job of the batch', async () => {
    // The batch's spec is read once for all its jobs, whatever the order of its parts.
    const apiOnly = await startTestServer({ QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true' }, { workers: false });
    try {
      const client = new Client(apiOnly.url, (await apiOnly.newAccount()).key);
      const form = batchForm(2);
      form.append('webhook_url', 'http://127.0.0.1:9/batch-done');
      const { body: created } = await createBatch(client, form);
      expect(created.jobs).toHaveLength(2);
      for (const job of created.jobs) expect(job).toMatchObject({ webhook: { host: '127.0.0.1:9' } });
    } finally {
      await apiOnly.close();
    }
  });

  it('Idempotency-Key replays the batch instead of making a second one', async () => {
    const account = await server.newAccount();
    const client = new Client(server.url, account.key);
    const headers = { 'idempotency-key': `batch-${Date.now()}` };
    const first = await createBatch(client, batchForm(2), headers);
    const again = await client.fetch('/api/v1/batches', { method: 'POST', body: batchForm(2), headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as BatchBody).id).toBe(first.body.id);
    // The replay made no jobs: the account has the first batch's two.
    expect((await server.runtime.db.jobs.list(account.accountId, { limit: 10 })).jobs).toHaveLength(2);
    const different = await client.fetch('/api/v1/batches', { method: 'POST', body: batchForm(3), headers });
    expect(different.status).toBe(422);
  });

  it('another account’s batch is not found, and a batch needs a file', async () => {
    const owner = new Client(server.url, (await server.newAccount()).key);
    const stranger = new Client(server.url, (await server.newAccount()).key);
    const { body: created } = await createBatch(owner, batchForm(1));
    expect((await stranger.fetch(`/api/v1/batches/${created.id}`)).status).toBe(404);
    const empty = await owner.fetch('/api/v1/batches', { method: 'POST', body: batchForm(0) });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ code: 'missing_file' });
  });
});
