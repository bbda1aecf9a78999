// The TypeScript SDK's `jobs.run` (POST /api/v1/run) against a real server: the result written to a
// file or read as a stream, a job still running when the server's wait ends followed and downloaded,
// and a failed job thrown as a QuireError with its code and job.
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Quire, QuireError } from '../../../clients/typescript/src/index.js';
import { corpusFile } from '../../support/corpus.js';
import { pageCount, rotations, toFile } from '../../support/pdf.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { scratchDir } from './support.js';

const PDF = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
let server: TestServer;
let quire: Quire;
let accountId: string;
let dir: string;

beforeAll(async () => {
  server = await startTestServer();
  const account = await server.newAccount();
  accountId = account.accountId;
  dir = await scratchDir('run');
  quire = new Quire({ url: server.url, apiKey: account.key, uploadStore: path.join(dir, 'tus.json') });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the TypeScript SDK’s jobs.run', () => {
  it('writes a merge’s result to a file, naming the job', async () => {
    const to = path.join(dir, 'merged.pdf');
    const result = await quire.jobs.run({ tool: 'merge', inputs: [PDF, PDF], to });
    expect(result).toMatchObject({
      contentType: 'application/pdf',
      name: expect.stringMatching(/merged\.pdf$/),
    });
    expect(result.bytes).toBe((await readFile(to)).length);
    expect(pageCount(to)).toBe(8);
    expect((await quire.jobs.get(result.jobId)).status).toBe('succeeded');
  }, 120_000);

  it('hands the result back as a stream', async () => {
    const result = await quire.jobs.run({ tool: 'rotate', options: { angle: 90 }, inputs: [PDF] });
    const bytes = Buffer.from(await new Response(result.body).arrayBuffer());
    expect(bytes.length).toBe(result.size);
    expect(rotations(toFile(bytes))).toEqual([90, 90, 90, 90]);
  }, 120_000);

  it('follows a job the server stopped waiting for (wait 0) and downloads it, uploading once', async () => {
    const before = (await server.runtime.db.jobs.list(accountId, { limit: 100 })).jobs.length;
    const to = path.join(dir, 'followed.pdf');
    const result = await quire.jobs.run({ tool: 'merge', inputs: [PDF, PDF], to, waitSeconds: 0 });
    expect(pageCount(to)).toBe(8);
    const after = (await server.runtime.db.jobs.list(accountId, { limit: 100 })).jobs;
    expect(after).toHaveLength(before + 1);
    expect(after[0]?.id).toBe(result.jobId);
  }, 120_000);

  it('throws a failed job as a QuireError with its code, status and job id', async () => {
    const broken = { data: new Blob(['%PDF-1.4\nnot really a PDF\n']), name: 'broken.pdf' };
    const error = await quire.jobs
      .run({ tool: 'merge', inputs: [PDF, broken], to: path.join(dir, 'never.pdf') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuireError);
    expect(error).toMatchObject({ code: 'pdf_corrupt', status: 422 });
    const jobId = (error as QuireError).problem?.job_id as string;
    expect((await quire.jobs.get(jobId)).error?.code).toBe('pdf_corrupt');
  }, 120_000);
});
