// docs/api.md §5, per-account quotas over real HTTP (issue 25, finding 5): bytes stored (multipart
// and tus uploads, results), jobs queued or processing, jobs per window, and job records that expire
// with their files.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client, type JobBody } from '../support/client.js';
import { healthy } from '../support/hostile-pdf.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { useTestServer } from '../support/use-test-server.js';

type Problem = { code: string; limit?: string; quota?: number };

/** A PDF-looking body of `size` bytes: sniffed as PDF, never run (no workers on this server). */
const pdfOfSize = (size: number) => Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(size - 9, 0x20)]);

const STORED = 20_000;

async function _accountOn(on: TestServer, plan: string): Promise<Client> {
  const id = `acct_${plan}_${Math.random().toString(36).slice(2)}`;
  await on.runtime.db.accounts.createAccount({ id, name: plan, plan, createdAt: Date.now() });
  return new Client(on.url, await on.keyFor(id, ['jobs:read', 'jobs:write']));
}

function job(client: Client, size: number): Promise<Response> {
  return client.createJob({ tool: 'compress', files: [{ name: 'a.pdf', data: pdfOfSize(size) }] });
}

/** Raw fetch, as the uploads tests send tus: @tus/server's CORS headers are not in the document. */
function tusCreate(client: Client, length: number): Promise<Response> {
  return fetch(`${client.baseUrl}/api/v1/uploads`, {
    method: 'POST',
    headers: client.headers({ 'tus-resumable': '1.0.0', 'upload-length': String(length) }),
  });
}

async function refusal(response: Response, status: number, code: string): Promise<Problem> {
  expect(response.status, await response.clone().text()).toBe(status);
  const problem = (await response.json()) as Problem;
  expect(problem.code).toBe(code);
  return problem;
}

// Jobs stay queued (no workers), so what is stored and queued only grows while a test runs.
const quire = useTestServer(
  {
    QUIRE_PLAN_PRO_MAX_STORED_BYTES: String(STORED),
    QUIRE_PLAN_PRO_MAX_QUEUED_JOBS: '3',
    QUIRE_PLAN_PRO_JOBS_PER_WINDOW: '4',
  },
  { workers: false },
);

describe('storage quota', () => {
  it('refuses the upload past the quota with 413, and every upload of an account at it, multipart and tus', async () => {
    const client = await quire.clientOn('pro');
    expect((await job(client, 12_000)).status).toBe(201);
    // 12,000 + 9,000 would pass 20,000: the files were read, then refused and deleted.
    const over = await refusal(await job(client, 9_000), 413, 'storage_quota_exceeded');
    expect(over).toMatchObject({ limit: 'stored_bytes', quota: STORED });
    expect((await tusCreate(client, 9_000)).status).toBe(413);
    // A tus upload holds its declared length from creation: 12,000 + 8,000 is the quota exactly.
    expect((await tusCreate(client, 8_000)).status).toBe(201);
    await refusal(await job(client, 100), 413, 'storage_quota_exceeded');
    await refusal(await tusCreate(client, 1), 413, 'storage_quota_exceeded');
    // Another account on the same plan is not held to this one's bytes.
    expect((await job(await quire.clientOn('pro'), 12_000)).status).toBe(201);
  });

  it('frees the bytes of a deleted job', async () => {
    const client = await quire.clientOn('pro');
    const first = (await (await job(client, 15_000)).json()) as JobBody;
    await refusal(await job(client, 15_000), 413, 'storage_quota_exceeded');
    expect((await client.fetch(`/api/v1/jobs/${first.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await job(client, 15_000)).status).toBe(201);
  });
});

describe('job quotas', () => {
  it('refuses a job past the queue quota with 429 and Retry-After', async () => {
    const client = await quire.clientOn('pro');
    for (let i = 0; i < 3; i++) expect((await job(client, 100)).status).toBe(201);
    const response = await job(client, 100);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await refusal(response, 429, 'queued_jobs_exceeded')).toMatchObject({
      limit: 'queued_jobs',
      quota: 3,
    });
  });

  it('counts jobs created in the window, deleted ones and a batch’s each', async () => {
    const client = await quire.clientOn('pro');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await (await job(client, 100)).json()) as JobBody).id);
    for (const id of ids) await client.fetch(`/api/v1/jobs/${id}`, { method: 'DELETE' });
    // Nothing is queued now, but the window has 3 of its 4: a batch of two would make 5.
    const batch = await client.form({ tool: 'compress', files: [] });
    batch.append('file', new Blob([pdfOfSize(100)]), 'a.pdf');
    batch.append('file', new Blob([pdfOfSize(100)]), 'b.pdf');
    const refused = await client.fetch('/api/v1/batches', { method: 'POST', body: batch });
    expect(refused.headers.get('retry-after')).toBe('60');
    await refusal(refused, 429, 'jobs_per_window_exceeded');
    expect((await job(client, 100)).status).toBe(201);
    await refusal(await job(client, 100), 429, 'jobs_per_window_exceeded');
  });
});

describe('job records', () => {
  it('are deleted with their files once past QUIRE_JOB_RECORD_RETENTION_MS', async () => {
    const short = await startTestServer({ QUIRE_JOB_RECORD_RETENTION_MS: '1000' });
    try {
      const client = new Client(short.url, (await short.newAccount()).key);
      const done = await client.run({
        tool: 'rotate',
        options: { angle: 90 },
        files: [{ name: 'a.pdf', data: healthy() }],
      });
      expect(done.status).toBe('succeeded');
      const folder = path.join(short.dataDir, 'files', 'jobs', done.id);
      expect((await readdir(folder)).length).toBeGreaterThan(0);
      let status = 200;
      for (let i = 0; i < 100 && status !== 404; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await client.fetch(`/api/v1/jobs/${done.id}`)).status;
      }
      expect(status).toBe(404);
      expect(await readdir(folder).catch(() => [])).toEqual([]);
    } finally {
      await short.close();
    }
  });
});
