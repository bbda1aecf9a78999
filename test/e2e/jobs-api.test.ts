// docs/api.md §2 and §7 over real HTTP: job lifecycle, listing, validation before upload, limits, errors.

import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import type { TestServer } from '../support/server.js';
import { useTestServer } from '../support/use-test-server.js';

const small = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');

const quire = useTestServer({
  QUIRE_UPLOAD_MAX_FILE_BYTES: String(2 * 1024 * 1024),
  QUIRE_UPLOAD_MAX_TOTAL_BYTES: String(4 * 1024 * 1024),
});

async function problem(response: Response, status: number, code: string) {
  expect(response.status, await response.clone().text()).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Record<string, unknown> & {
    errors?: Array<{ pointer?: string; field?: string }>;
  };
  expect(body).toMatchObject({
    status,
    code,
    type: expect.stringMatching(/^https:\/\//),
    title: expect.any(String),
  });
  return body;
}

async function storedFiles(on: TestServer = quire.server): Promise<string[]> {
  const root = path.join(on.dataDir, 'files');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

describe('creating and reading jobs', () => {
  it('creates a job: 201, Location, and the contract’s job object', async () => {
    const response = await quire.client.createJob({
      tool: 'rotate',
      options: { angle: 90 },
      metadata: { order: 'A-17' },
      files: [small],
    });
    expect(response.status).toBe(201);
    const job = (await response.json()) as JobBody;
    expect(response.headers.get('location')).toBe(`/api/v1/jobs/${job.id}`);
    expect(job.id).toMatch(/^job_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(job).toMatchObject({
      object: 'job',
      tool: 'rotate',
      options: { angle: 90 },
      metadata: { order: 'A-17' },
      input: {
        files: [{ name: 'pdf20ex__Simple_PDF_2.0_file.pdf', size: 5211, content_type: 'application/pdf' }],
      },
      links: { self: `/api/v1/jobs/${job.id}`, download: `/api/v1/jobs/${job.id}/download` },
    });
    expect(job.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const done = await quire.client.waitFor(job.id);
    expect(done).toMatchObject({ status: 'succeeded', progress: 100 });
    expect(done.result).toMatchObject({ content_type: 'application/pdf', size: expect.any(Number) });
    expect(done.completed_at).toBeDefined();
  });

  it('holds GET ?wait= until the job ends', async () => {
    const job = await quire.client.submit({ tool: 'rotate', options: { angle: 180 }, files: [small] });
    const started = Date.now();
    const response = await quire.client.fetch(`/api/v1/jobs/${job.id}?wait=20`);
    const body = (await response.json()) as JobBody;
    expect(body.status).toBe('succeeded');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('refuses ?wait above 60 seconds', async () => {
    const job = await quire.client.submit({ tool: 'rotate', options: { angle: 180 }, files: [small] });
    await problem(await quire.client.fetch(`/api/v1/jobs/${job.id}?wait=61`), 400, 'invalid_request');
  });

  it('streams status and progress as server-sent events until the job ends', async () => {
    const job = await quire.client.submit({
      tool: 'compress',
      options: { level: 'lossless' },
      files: [small],
    });
    const response = await quire.client.fetch(`/api/v1/jobs/${job.id}/events`);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const events = text.split('\n\n').filter((e) => e.startsWith('event: job'));
    const last = JSON.parse(events.at(-1)!.split('\ndata: ')[1]!) as JobBody;
    expect(last.status).toBe('succeeded');
    expect(last.progress).toBe(100);
  });

  it('lists newest first with cursor pagination and filters', async () => {
    const account = new Client(quire.server.url, (await quire.server.newAccount()).key);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await account.submit({ tool: 'rotate', options: { angle: 90 }, files: [small] })).id);
    ids.push((await account.submit({ tool: 'info', files: [small] })).id);
    const first = (await (await account.fetch('/api/v1/jobs?limit=2')).json()) as {
      object: string;
      data: JobBody[];
      has_more: boolean;
    };
    expect(first.object).toBe('list');
    expect(first.data.map((j) => j.id)).toEqual([ids[3], ids[2]]);
    expect(first.has_more).toBe(true);
    const second = (await (
      await account.fetch(`/api/v1/jobs?limit=2&starting_after=${ids[2]}`)
    ).json()) as typeof first;
    expect(second.data.map((j) => j.id)).toEqual([ids[1], ids[0]]);
    expect(second.has_more).toBe(false);
    const rotates = (await (
      await account.fetch('/api/v1/jobs?tool=rotate&limit=100')
    ).json()) as typeof first;
    expect(rotates.data.map((j) => j.id)).toEqual([ids[2], ids[1], ids[0]]);
    await problem(await account.fetch('/api/v1/jobs?limit=0'), 400, 'invalid_request');
    await problem(await account.fetch('/api/v1/jobs?status=done'), 400, 'invalid_request');
  });
});

describe('refusing bad requests before storing anything', () => {
  // A server without workers, so nothing but the uploads under test changes its storage.
  const idle = useTestServer({ QUIRE_UPLOAD_MAX_FILE_BYTES: String(2 * 1024 * 1024) }, { workers: false });
  beforeAll(async () => {
    await idle.client.submit({ tool: 'rotate', options: { angle: 90 }, files: [small] });
  });

  it.each([
    [{ tool: 'no-such-tool', files: [small] }, 400, 'unknown_tool'],
    [{ tool: 'rotate', options: { angle: 45 }, files: [small] }, 400, 'invalid_options'],
    [{ tool: 'rotate', options: { angle: 90, colour: 'red' }, files: [small] }, 400, 'invalid_options'],
    [{ tool: 'rotate', options: { angle: '90' }, files: [small] }, 400, 'invalid_options'],
    [{ tool: 'rotate', options: { angle: 90, pages: '1-x' }, files: [small] }, 400, 'invalid_options'],
    [{ tool: 'rotate', options: { angle: 90 }, files: [] }, 400, 'missing_file'],
    [{ tool: 'rotate', options: { angle: 90 }, files: [small, small] }, 400, 'too_many_files'],
    [{ tool: 'merge', files: [small] }, 400, 'missing_file'],
    [{ tool: 'protect', options: { encryption: 'aes-256' }, files: [small] }, 400, 'invalid_options'],
    [{ tool: 'split', options: { mode: 'every' }, files: [small] }, 400, 'invalid_options'],
    [{ tool: 'split', options: { pages: 3 }, files: [small] }, 400, 'invalid_options'],
    [
      { tool: 'merge', options: { pages_per_file: ['1', '1', '1'] }, files: [small, small] },
      400,
      'invalid_options',
    ],
    [{ tool: 'split', options: { mode: 'ranges', ranges: ['1-x'] }, files: [small] }, 400, 'invalid_options'],
    [
      {
        tool: 'rotate',
        options: { angle: 90 },
        files: [{ name: 'fake.pdf', data: '<html>not a pdf</html>' }],
      },
      400,
      'unsupported_file',
    ],
    [
      { tool: 'rotate', options: { angle: 90 }, files: [{ name: 'empty.pdf', data: '' }] },
      400,
      'unsupported_file',
    ],
    [
      { tool: 'rotate', options: { angle: 90 }, metadata: { n: 1 } as never, files: [small] },
      400,
      'invalid_metadata',
    ],
  ])('%#: refuses with $1 $2 and keeps no upload', async (input, status, code) => {
    const before = await storedFiles(idle.server);
    expect(before.length).toBeGreaterThan(0);
    const body = await problem(await idle.client.createJob(input as never), status, code);
    if (code === 'invalid_options') expect(body.errors?.[0]?.pointer).toMatch(/^\/options/);
    expect(await storedFiles(idle.server)).toEqual(before);
  });

  it('checks the file count when the files come before the tool part', async () => {
    const before = await storedFiles(idle.server);
    const form = new FormData();
    const pdf = new Blob([readFileSync(small)]);
    form.append('file', pdf, 'a.pdf');
    form.append('file', pdf, 'b.pdf');
    form.append('tool', 'rotate');
    form.append('options', JSON.stringify({ angle: 90 }));
    const response = await idle.client.fetch('/api/v1/jobs', { method: 'POST', body: form });
    await problem(response, 400, 'too_many_files');
    expect(await storedFiles(idle.server)).toEqual(before);
  });

  it.each([
    ['before', true],
    ['after', false],
  ])(
    'refuses a non-PDF sent %s the tool part with its accepted types and which input it was',
    async (_when, filesFirst) => {
      const before = await storedFiles(idle.server);
      const form = new FormData();
      const files = () => {
        form.append('file', new Blob([readFileSync(small)]), 'a.pdf');
        form.append('file', new Blob(['<html>not a pdf</html>']), 'b.pdf');
      };
      if (filesFirst) files();
      form.append('tool', 'merge');
      if (!filesFirst) files();
      const response = await idle.client.fetch('/api/v1/jobs', { method: 'POST', body: form });
      const body = await problem(response, 400, 'unsupported_file');
      expect(body).toMatchObject({ accepts: ['application/pdf'], input_index: 1 });
      expect(body.errors).toEqual([{ field: 'file', detail: 'input 2 is not of an accepted type' }]);
      expect(await storedFiles(idle.server)).toEqual(before);
    },
  );

  it('accepts options and metadata parts sent as application/json', async () => {
    const form = new FormData();
    form.append('tool', 'rotate');
    form.append('options', new Blob([JSON.stringify({ angle: 270 })], { type: 'application/json' }));
    form.append('metadata', new Blob([JSON.stringify({ ref: 'x-1' })], { type: 'application/json' }));
    form.append('file', new Blob([readFileSync(small)]), 'a.pdf');
    const response = await idle.client.fetch('/api/v1/jobs', { method: 'POST', body: form });
    expect(response.status, await response.clone().text()).toBe(201);
    expect(await response.json()).toMatchObject({ options: { angle: 270 }, metadata: { ref: 'x-1' } });
  });

  it('refuses a request without the tool part', async () => {
    const form = new FormData();
    form.append('file', new Blob(['%PDF-1.4']), 'a.pdf');
    const body = await problem(
      await quire.client.fetch('/api/v1/jobs', { method: 'POST', body: form }),
      400,
      'invalid_request',
    );
    expect(body.errors).toEqual([{ field: 'tool', detail: 'is required' }]);
  });

  it('refuses NUL characters in ids and filters with 400 on every database', async () => {
    for (const url of ['/api/v1/jobs/job_%00', '/api/v1/jobs?tool=rot%00ate', '/api/v1/jobs/x%00/download']) {
      await problem(await quire.client.fetch(url), 400, 'invalid_request');
    }
  });

  it('answers 413 with the limit for a file over the per-file limit, keeping nothing', async () => {
    const before = await storedFiles(idle.server);
    const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3 * 1024 * 1024, 0x20)]);
    const body = await problem(
      await idle.client.createJob({ tool: 'compress', files: [{ name: 'big.pdf', data: big }] }),
      413,
      'payload_too_large',
    );
    expect(body.limit_bytes).toBe(2 * 1024 * 1024);
    expect(await storedFiles(idle.server)).toEqual(before);
  });

  it('answers 413 on a declared Content-Length over the limit without reading the body', async () => {
    const url = new URL(quire.server.url);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(
          [
            'POST /api/v1/jobs HTTP/1.1',
            `Host: ${url.host}`,
            `Authorization: Bearer ${quire.client.key}`,
            'Content-Type: multipart/form-data; boundary=x',
            `Content-Length: ${10 * 1024 * 1024 * 1024}`,
            '',
            '',
          ].join('\r\n'),
        );
        // Nothing of the body is ever sent: the answer must come from the headers alone.
      });
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk;
      });
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      setTimeout(() => reject(new Error(`no close; got ${data}`)), 10_000).unref();
    });
    expect(reply).toMatch(/^HTTP\/1\.1 413/);
    expect(reply.toLowerCase()).toContain('connection: close');
    expect(reply).toContain('"limit_bytes":4194304');
  });
});

describe('cancel, delete and download states', () => {
  const idle = useTestServer({}, { workers: false });

  it('cancels a queued job at once; a second cancel is a 409 conflict', async () => {
    const job = await idle.client.submit({ tool: 'rotate', options: { angle: 90 }, files: [small] });
    await problem(await idle.client.fetch(`/api/v1/jobs/${job.id}/download`), 409, 'job_not_ready');
    const canceled = (await (
      await idle.client.fetch(`/api/v1/jobs/${job.id}/cancel`, { method: 'POST' })
    ).json()) as JobBody;
    expect(canceled.status).toBe('canceled');
    const again = await problem(
      await idle.client.fetch(`/api/v1/jobs/${job.id}/cancel`, { method: 'POST' }),
      409,
      'job_state_conflict',
    );
    expect(again.job_status).toBe('canceled');
    await problem(await idle.client.fetch(`/api/v1/jobs/${job.id}/download`), 409, 'job_canceled');
  });

  it('deletes a job with its files; it is then 404', async () => {
    const job = await idle.client.submit({ tool: 'rotate', options: { angle: 90 }, files: [small] });
    const response = await idle.client.fetch(`/api/v1/jobs/${job.id}`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    await problem(await idle.client.fetch(`/api/v1/jobs/${job.id}`), 404, 'not_found');
    const files = await readdir(path.join(idle.server.dataDir, 'files'), { recursive: true }).catch(() => []);
    expect(files.filter((f) => String(f).includes(job.id) && String(f).includes('input-'))).toEqual([]);
  });

  it('answers 409 job_failed for a failed job and 410 once the result is gone', async () => {
    const failed = await quire.client.run({
      tool: 'unlock',
      options: { password: 'wrong' },
      files: [corpusFile('qpdf__c-r4.pdf')],
    });
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'invalid_password', retryable: false });
    await problem(await quire.client.fetch(`/api/v1/jobs/${failed.id}/download`), 409, 'job_failed');

    const ok = await quire.client.run({ tool: 'rotate', options: { angle: 90 }, files: [small] });
    await quire.server.runtime.db.jobs.markResultDeleted(ok.id);
    await problem(await quire.client.fetch(`/api/v1/jobs/${ok.id}/download`), 410, 'result_expired');
  });

  it('never echoes secret options', async () => {
    const job = await quire.client.run({
      tool: 'protect',
      options: { user_password: 'hunter2-secret' },
      files: [small],
    });
    expect(job.options).toMatchObject({ user_password: '[redacted]' });
    expect(JSON.stringify(job)).not.toContain('hunter2-secret');
  });
});
