// docs/api.md §"Prefer: wait": one request from upload to result bytes. `Prefer: wait` with an Accept
// that ranks the result's type above JSON answers 200 with the result; everything else is the 201 job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { pageCount, qpdfCheckPasses, toFile } from '../support/pdf.js';
import { startTestServer, type TestServer } from '../support/server.js';

const FOUR_PAGES = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
const OUTLINE = corpusFile('pypdf-samples__pdflatex-outline.pdf');

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  client = new Client(server.url, (await server.newAccount()).key);
});
afterAll(() => server.close());

async function mergeWith(headers: Record<string, string>, on = client, files = [FOUR_PAGES, OUTLINE]) {
  const body = await on.form({ tool: 'merge', files });
  return on.fetch('/api/v1/jobs', { method: 'POST', body, headers });
}

describe('POST /api/v1/jobs with Prefer: wait and Accept: application/pdf', () => {
  it('answers 200 with the merged PDF, its name, and the job in Location', async () => {
    const response = await mergeWith({ prefer: 'wait=30', accept: 'application/pdf' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('preference-applied')).toBe('wait=30');
    expect(response.headers.get('content-disposition')).toContain(
      'filename="pypdf-samples__pdflatex-4-pages-merged.pdf"',
    );
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
    const file = toFile(bytes);
    expect(pageCount(file)).toBe(8);
    expect(qpdfCheckPasses(file)).toBe(true);
    const location = response.headers.get('location')!;
    expect(location).toMatch(/^\/api\/v1\/jobs\/job_/);
    const job = (await (await client.fetch(location)).json()) as JobBody;
    expect(job.status).toBe('succeeded');
    expect((job.result as { size: number }).size).toBe(bytes.length);
  }, 120_000);

  it('keeps the 201 job document without Accept, with */* or with JSON ranked first', async () => {
    for (const accept of [undefined, '*/*', 'application/json, application/pdf;q=0.5']) {
      const response = await mergeWith({ prefer: 'wait=30', ...(accept ? { accept } : {}) });
      expect(response.status, String(accept)).toBe(201);
      expect(((await response.json()) as JobBody).status).toBe('succeeded');
    }
  }, 120_000);

  it('keeps the 201 job document without Prefer: wait', async () => {
    const response = await mergeWith({ accept: 'application/pdf' });
    expect(response.status).toBe(201);
    expect(['queued', 'processing', 'succeeded']).toContain(((await response.json()) as JobBody).status);
  }, 120_000);

  it('answers a failed job with the 201 job document and its error', async () => {
    const notPdf = toFile(Buffer.from('%PDF-1.4\nnot really\n'));
    const response = await mergeWith({ prefer: 'wait=30', accept: 'application/pdf' }, client, [
      FOUR_PAGES,
      notPdf,
    ]);
    expect(response.status).toBe(201);
    const job = (await response.json()) as JobBody;
    expect(job.status).toBe('failed');
    expect((job.error as { code: string }).code).toBe('pdf_corrupt');
  }, 120_000);

  it('keeps the 201 job document for a key that may not read results', async () => {
    const { key } = await server.newAccount(['jobs:read', 'jobs:write']);
    const response = await mergeWith(
      { prefer: 'wait=30', accept: 'application/pdf' },
      new Client(server.url, key),
    );
    expect(response.status).toBe(201);
    expect(((await response.json()) as JobBody).status).toBe('succeeded');
  }, 120_000);

  it('replays the same Idempotency-Key as the 201 job document, not a second job', async () => {
    const headers = { prefer: 'wait=30', accept: 'application/pdf', 'idempotency-key': 'inline-result-1' };
    const first = await mergeWith(headers);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const replay = await mergeWith(headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const job = (await replay.json()) as JobBody;
    expect(`/api/v1/jobs/${job.id}`).toBe(first.headers.get('location'));
    expect(job.status).toBe('succeeded');
  }, 120_000);
});
