// docs/api.md §2 "One request: POST /run": the job request answered with the job's result once it
// ends, its failure as a problem naming the job, or 503 job_still_running while it goes on.
import { describe, expect, it } from 'vitest';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { fakeEngine } from '../support/fake-engine/index.js';
import { fakeTool } from '../support/fake-engine/tool.js';
import { pageCount, qpdfCheckPasses, rotations, toFile, unzip } from '../support/pdf.js';
import { useTestServer } from '../support/use-test-server.js';

const FOUR_PAGES = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
const OUTLINE = corpusFile('pypdf-samples__pdflatex-outline.pdf');
const T = 120_000;

// A hanging engine is killed after 5 s (`timeout`): a job that certainly outlasts a 1 s wait. One
// long-poll place per key, so a second wait of one key is refused.
const used = useTestServer(
  { QUIRE_ENGINE_TIMEOUT_MS: '5000', QUIRE_STREAMS_MAX_PER_KEY: '1' },
  { extras: { engines: [fakeEngine], tools: [fakeTool] } },
);

async function run(
  form: FormData,
  headers: Record<string, string> = {},
  client: Client = used.client,
  signal?: AbortSignal,
): Promise<Response> {
  return client.fetch('/api/v1/run', { method: 'POST', body: form, headers, ...(signal ? { signal } : {}) });
}

const mergeForm = (files = [FOUR_PAGES, OUTLINE]) => used.client.form({ tool: 'merge', files });

describe('POST /api/v1/run', () => {
  it(
    'answers a merge with the merged PDF, its name and length, and the job in Quire-Job-Id',
    async () => {
      const response = await run(await mergeForm());
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect(response.headers.get('content-disposition')).toContain(
        'filename="pypdf-samples__pdflatex-4-pages-merged.pdf"',
      );
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
      const file = toFile(bytes);
      expect(pageCount(file)).toBe(8);
      expect(qpdfCheckPasses(file)).toBe(true);
      const id = response.headers.get('quire-job-id')!;
      expect(response.headers.get('content-location')).toBe(`/api/v1/jobs/${id}`);
      // A job like any other afterwards: readable, and its result downloadable through the link.
      const job = (await (await used.client.fetch(`/api/v1/jobs/${id}`)).json()) as JobBody;
      expect(job).toMatchObject({ status: 'succeeded', tool: 'merge', result: { size: bytes.length } });
      const link = await used.client.fetch(`/api/v1/jobs/${id}/download`);
      expect(link.status).toBe(302);
      const again = await fetch(new URL(link.headers.get('location')!, used.server.url));
      expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
    },
    T,
  );

  it(
    'answers a chain of steps with the last step’s result',
    async () => {
      const form = await used.client.form({ tool: 'rotate', files: [FOUR_PAGES] });
      form.delete('tool');
      form.set('steps', JSON.stringify([{ tool: 'rotate', options: { angle: 90 } }, { tool: 'split' }]));
      // Steps must come before the files: rebuilt in that order.
      const ordered = new FormData();
      ordered.set('steps', form.get('steps') as string);
      ordered.append('file', form.get('file') as File);
      const response = await run(ordered);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/zip');
      const entries = await unzip(Buffer.from(await response.arrayBuffer()));
      // split's default: one file per page, each turned by the first step.
      expect(entries.size).toBe(4);
      for (const pdf of entries.values()) expect(rotations(toFile(pdf))).toEqual([90]);
    },
    T,
  );

  it(
    'answers a failed job with its own code and status, naming the job',
    async () => {
      const broken = toFile(Buffer.from('%PDF-1.4\nnot really a PDF\n'));
      const response = await run(await mergeForm([FOUR_PAGES, broken]));
      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      const problem = (await response.json()) as Record<string, unknown>;
      expect(problem).toMatchObject({ code: 'pdf_corrupt', status: 422, job_status: 'failed' });
      expect(problem.job_id).toBe(response.headers.get('quire-job-id'));
      const job = (await (await used.client.fetch(`/api/v1/jobs/${problem.job_id}`)).json()) as JobBody;
      expect(job.error?.code).toBe('pdf_corrupt');
    },
    T,
  );

  it(
    'answers 503 job_still_running when the wait ends first; a retry with the key waits on the same job',
    async () => {
      const form = await used.client.form({
        tool: 'fake',
        options: { behaviour: 'hang' },
        files: [FOUR_PAGES],
      });
      const key = { 'idempotency-key': `run-hang-${Date.now()}` };
      const first = await run(form, { ...key, prefer: 'wait=1' });
      expect(first.status).toBe(503);
      expect(first.headers.get('retry-after')).toBe('1');
      expect(first.headers.get('preference-applied')).toBe('wait=1');
      const problem = (await first.json()) as Record<string, unknown>;
      expect(problem).toMatchObject({ code: 'job_still_running', job_status: expect.any(String) });
      const id = problem.job_id as string;
      expect(first.headers.get('location')).toBe(`/api/v1/jobs/${id}`);
      // The job went on; the retry (same key, same body, default wait) meets its end: the engine's
      // time limit, answered as the job's own failure.
      const retry = await run(form, key);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.headers.get('quire-job-id')).toBe(id);
      expect(retry.status).toBe(422);
      expect(await retry.json()).toMatchObject({ code: 'timeout', job_id: id });
    },
    T,
  );

  it(
    'replays a finished request with the same Idempotency-Key as the same job’s result',
    async () => {
      const key = { 'idempotency-key': `run-merge-${Date.now()}` };
      const first = await run(await mergeForm(), key);
      expect(first.status).toBe(200);
      const bytes = Buffer.from(await first.arrayBuffer());
      const replay = await run(await mergeForm(), key);
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.headers.get('quire-job-id')).toBe(first.headers.get('quire-job-id'));
      expect(Buffer.from(await replay.arrayBuffer()).equals(bytes)).toBe(true);
      const jobs = await used.server.runtime.db.jobs.list(used.accountId, { limit: 100 });
      expect(jobs.jobs.filter((j) => j.id === first.headers.get('quire-job-id'))).toHaveLength(1);
    },
    T,
  );

  it(
    'refuses a key without results:read or jobs:read with 403 before reading the body',
    async () => {
      for (const [scopes, missing] of [
        [['jobs:write', 'jobs:read'], 'results:read'],
        [['jobs:write', 'results:read'], 'jobs:read'],
      ] as const) {
        const { key } = await used.server.newAccount([...scopes]);
        const response = await run(await mergeForm(), {}, new Client(used.server.url, key));
        expect(response.status).toBe(403);
        expect(await response.json()).toMatchObject({ code: 'insufficient_scope', required_scope: missing });
      }
    },
    T,
  );

  it(
    'refuses a wait past the key’s long-poll places with 429, and a client going away leaves its job running',
    async () => {
      const { accountId, key } = await used.server.newAccount();
      const other = new Client(used.server.url, key);
      const form = await other.form({ tool: 'fake', options: { behaviour: 'hang' }, files: [FOUR_PAGES] });
      const gone = new AbortController();
      const first = run(form, {}, other, gone.signal).catch(() => undefined);
      const jobs = used.server.runtime.db.jobs;
      let id: string | undefined;
      while (!id) {
        id = (await jobs.list(accountId, { limit: 10 })).jobs[0]?.id;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const refused = await run(await mergeForm(), {}, other);
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: 'too_many_streams' });
      expect((await jobs.list(accountId, { limit: 10 })).jobs).toHaveLength(1);
      gone.abort();
      expect(await first).toBeUndefined();
      // Read from the store: the key's one place may still be held a moment by the request just cut.
      let ended = await jobs.get(accountId, id);
      while (ended?.status === 'queued' || ended?.status === 'processing') {
        await new Promise((resolve) => setTimeout(resolve, 200));
        ended = await jobs.get(accountId, id);
      }
      expect(ended).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
    },
    T,
  );
});
