// docs/api.md §2 (steps, input passwords, Prefer: wait): chained steps on real engines, a fan-out
// after split, refusals with pointers under /steps, the input password of every PDF tool, and job
// creation answered with the finished job.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashableServe } from '../support/cli-process.js';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { pageCount, pageText, qpdfCheckPasses, requiresPassword, toFile, unzip } from '../support/pdf.js';
import { useTestServer } from '../support/use-test-server.js';

const SCANNED = corpusFile('ocrmypdf__c02-22.pdf');
const FOUR_PAGES = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
const SLOW = corpusFile('pdfjs__freeculture.pdf');
const PASSWORD = 'StepsPw5c1e';

/** `input` encrypted with a user password by qpdf (AES-256), as a new file. */
async function encrypted(input: string, password: string): Promise<string> {
  const out = path.join(await mkdtemp(path.join(os.tmpdir(), 'quire-steps-')), 'locked.pdf');
  execFileSync('qpdf', ['--encrypt', password, `${password}-owner`, '256', '--', input, out]);
  return out;
}

type Step = { tool: string; options?: Record<string, unknown> };

async function createSteps(
  client: Client,
  steps: Step[],
  file: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const form = new FormData();
  form.set('steps', JSON.stringify(steps));
  form.append('file', new Blob([readFileSync(file)]), path.basename(file));
  return client.fetch('/api/v1/jobs', { method: 'POST', body: form, headers });
}

async function runSteps(client: Client, steps: Step[], file: string, seconds = 240): Promise<JobBody> {
  const response = await createSteps(client, steps, file);
  expect(response.status, await response.clone().text()).toBe(201);
  return client.waitFor(((await response.json()) as JobBody).id, seconds);
}

const quire = useTestServer();

describe('steps', () => {
  it('unlock → ocr → compress → page-numbers makes one searchable, numbered PDF that needs no password', async () => {
    const locked = await encrypted(SCANNED, PASSWORD);
    const job = await runSteps(
      quire.client,
      [
        { tool: 'unlock', options: { password: PASSWORD } },
        { tool: 'ocr', options: { languages: ['eng'] } },
        { tool: 'compress', options: { level: 'medium' } },
        { tool: 'page-numbers', options: { format: 'Seite {n}' } },
      ],
      locked,
    );
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    expect((job.steps as Step[]).map((s) => s.tool)).toEqual(['unlock', 'ocr', 'compress', 'page-numbers']);
    expect((job.steps as Step[])[0]!.options).toEqual({ password: '[redacted]' });
    const done = job.result!.steps as Array<{ tool: string; facts: Record<string, unknown> }>;
    expect(done.map((s) => s.tool)).toEqual(['unlock', 'ocr', 'compress', 'page-numbers']);
    for (const step of done) expect(step.facts).toMatchObject({ pages: 1, output_size: expect.any(Number) });
    const pdf = toFile((await quire.client.download(job.id)).body);
    expect(requiresPassword(pdf)).toBe(false);
    expect(qpdfCheckPasses(pdf)).toBe(true);
    const text = pageText(pdf);
    expect(text).toMatch(/kitchen/i);
    expect(text).toMatch(/garden/i);
    expect(text).toMatch(/Seite\s+1/);
  }, 300_000);

  it('split → compress fans out: one compressed PDF per range in a ZIP', async () => {
    const job = await runSteps(
      quire.client,
      [
        { tool: 'split', options: { mode: 'ranges', ranges: ['1-2', '3-4'] } },
        { tool: 'compress', options: { level: 'low' } },
      ],
      FOUR_PAGES,
    );
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result).toMatchObject({
      content_type: 'application/zip',
      name: 'pypdf-samples__pdflatex-4-pages-split.zip',
    });
    const steps = job.result!.steps as Array<Record<string, unknown>>;
    expect(steps[0]).toMatchObject({ tool: 'split', facts: { pages: 4 } });
    expect(steps[1]).toMatchObject({
      tool: 'compress',
      files: [
        { name: 'pypdf-samples__pdflatex-4-pages-1.pdf', facts: { pages: 2 } },
        { name: 'pypdf-samples__pdflatex-4-pages-2.pdf', facts: { pages: 2 } },
      ],
    });
    const entries = await unzip((await quire.client.download(job.id)).body);
    expect([...entries.keys()].sort()).toEqual([
      'pypdf-samples__pdflatex-4-pages-1-compressed.pdf',
      'pypdf-samples__pdflatex-4-pages-2-compressed.pdf',
    ]);
    for (const bytes of entries.values()) {
      const part = toFile(bytes);
      expect(pageCount(part)).toBe(2);
      expect(qpdfCheckPasses(part)).toBe(true);
    }
  }, 240_000);

  it('refuses a bad option in step 3 with a pointer under /steps/2', async () => {
    const response = await createSteps(
      quire.client,
      [
        { tool: 'rotate', options: { angle: 90 } },
        { tool: 'linearize' },
        { tool: 'compress', options: { level: 'extreme' } },
      ],
      FOUR_PAGES,
    );
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { code: string; errors: Array<{ pointer: string }> };
    expect(problem.code).toBe('invalid_options');
    expect(problem.errors.map((e) => e.pointer)).toEqual(['/steps/2/options/level']);
  });

  it('refuses a step that cannot take what the step before makes, and both forms at once', async () => {
    const chain = await createSteps(
      quire.client,
      [{ tool: 'extract-text' }, { tool: 'compress' }],
      FOUR_PAGES,
    );
    expect(chain.status).toBe(400);
    expect(((await chain.json()) as { errors: Array<{ pointer: string }> }).errors[0]!.pointer).toBe(
      '/steps/1/tool',
    );
    const form = new FormData();
    form.set('tool', 'compress');
    form.set('steps', JSON.stringify([{ tool: 'compress' }]));
    const both = await quire.client.fetch('/api/v1/jobs', { method: 'POST', body: form });
    expect(both.status).toBe(400);
  });

  it('names the failing step on the error', async () => {
    const job = await runSteps(
      quire.client,
      [{ tool: 'linearize' }, { tool: 'rotate', options: { angle: 90, pages: '9' } }],
      FOUR_PAGES,
    );
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ code: 'page_range_invalid', step: { index: 1, tool: 'rotate' } });
    expect(job.error!.message).toMatch(/^Step 2 \(rotate\): /);
  }, 120_000);
});

describe('input password', () => {
  it('compresses an encrypted file in one job, refuses a wrong password, and keeps the password out of logs, view and database', async () => {
    const locked = await encrypted(FOUR_PAGES, PASSWORD);
    const job = await quire.client.run(
      { tool: 'compress', options: { password: PASSWORD }, files: [locked] },
      120,
    );
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.options).toMatchObject({ password: '[redacted]', level: 'medium' });
    // The result keeps the input's encryption (docs/tools.md, "Encrypted and signed inputs").
    expect(job.result?.encryption).toBe('kept');
    const pdf = toFile((await quire.client.download(job.id)).body);
    expect(requiresPassword(pdf)).toBe(true);
    expect(
      execFileSync('qpdf', [`--password=${PASSWORD}`, '--show-npages', pdf])
        .toString()
        .trim(),
    ).toBe('4');

    const wrong = await quire.client.run(
      { tool: 'compress', options: { password: 'nope' }, files: [locked] },
      120,
    );
    expect(wrong.status).toBe('failed');
    expect(wrong.error?.code).toBe('invalid_password');
    const none = await quire.client.run({ tool: 'compress', files: [locked] }, 120);
    expect(none.error?.code).toBe('pdf_encrypted');

    const seen = JSON.stringify(await (await quire.client.fetch(`/api/v1/jobs/${job.id}`)).json());
    expect(seen).not.toContain(PASSWORD);
    expect(quire.server.logs.join('\n')).not.toContain(PASSWORD);
    // The database (and its WAL) and every stored file: the password is in none of them.
    for (const entry of readdirSync(quire.server.dataDir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      expect(readFileSync(file).includes(PASSWORD), file).toBe(false);
    }
  }, 300_000);
});

describe('Prefer: wait', () => {
  it('answers a small compress with the finished job and says the wait was applied', async () => {
    const form = await quire.client.form({ tool: 'compress', files: [FOUR_PAGES] });
    const response = await quire.client.fetch('/api/v1/jobs', {
      method: 'POST',
      body: form,
      headers: { prefer: 'respond-async; x=1, wait=30' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('preference-applied')).toBe('wait=30');
    const job = (await response.json()) as JobBody;
    expect(job.status).toBe('succeeded');
    expect((job.links as Record<string, string>).download).toBe(`/api/v1/jobs/${job.id}/download`);
  }, 120_000);

  it('returns 201 with the running job when the job outlasts the wait', async () => {
    const form = await quire.client.form({
      tool: 'compress',
      options: { level: 'high', grayscale: true },
      files: [SLOW],
    });
    const started = Date.now();
    const response = await quire.client.fetch('/api/v1/jobs', {
      method: 'POST',
      body: form,
      headers: { prefer: 'wait=1' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('preference-applied')).toBe('wait=1');
    const job = (await response.json()) as JobBody;
    expect(['queued', 'processing']).toContain(job.status);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    await quire.client.fetch(`/api/v1/jobs/${job.id}/cancel`, { method: 'POST' });
  }, 120_000);

  it('caps the wait at the server setting and ignores a malformed one', async () => {
    const capped = await quire.client.fetch('/api/v1/jobs', {
      method: 'POST',
      body: await quire.client.form({ tool: 'info', files: [FOUR_PAGES] }),
      headers: { prefer: 'wait=100000' },
    });
    expect(capped.headers.get('preference-applied')).toBe('wait=60');
    const malformed = await quire.client.fetch('/api/v1/jobs', {
      method: 'POST',
      body: await quire.client.form({ tool: 'info', files: [FOUR_PAGES] }),
      headers: { prefer: 'wait=soon' },
    });
    expect(malformed.status).toBe(201);
    expect(malformed.headers.get('preference-applied')).toBeNull();
  }, 120_000);
});

describe('a worker killed mid-step', () => {
  const serve = crashableServe('steps-crash');
  beforeAll(() => serve.setUp());
  afterAll(() => serve.tearDown());

  it('finishes the job on the next worker after kill -9 during step 2', async () => {
    await serve.start();
    const crashClient = new Client(serve.url, await serve.key());
    const response = await createSteps(
      crashClient,
      [
        { tool: 'linearize' },
        // Ghostscript on 352 pages: several seconds, long enough to be killed in.
        { tool: 'compress', options: { level: 'high', grayscale: true } },
        { tool: 'rotate', options: { angle: 90 } },
      ],
      SLOW,
    );
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as JobBody;
    const deadline = Date.now() + 120_000;
    for (;;) {
      const job = (await (await crashClient.fetch(`/api/v1/jobs/${id}`)).json()) as JobBody;
      if ((job.step as { index: number } | undefined)?.index === 1) {
        expect(job.step).toEqual({ index: 1, tool: 'compress' });
        break;
      }
      expect(job.status).not.toBe('succeeded');
      if (Date.now() > deadline) throw new Error(`job ${id} never reached step 2`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await serve.kill9();

    await serve.start();
    const done = await crashClient.waitFor(id, 300);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect(done.attempts).toBe(2);
    expect((done.result!.steps as Array<{ tool: string }>).map((s) => s.tool)).toEqual([
      'linearize',
      'compress',
      'rotate',
    ]);
    const pdf = toFile((await crashClient.download(id)).body);
    expect(pageCount(pdf)).toBe(352);
    expect(qpdfCheckPasses(pdf)).toBe(true);
  }, 420_000);
});
