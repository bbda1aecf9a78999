// The TypeScript SDK against a real server (real HTTP, workers and engines): every available tool
// through `quire.run`, a chained job, a batch, typed errors, typed options, and the committed types
// equal to what the live document generates.
import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { inspect } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Quire, QuireError, type Tool } from '../../../clients/typescript/src/index.js';
import type { InputSource } from '../../../clients/typescript/src/inputs.js';
import { corpusFile } from '../../support/corpus.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { inputsFor, type PublishedTool, sampleOptions } from '../../support/tool-samples.js';
import { scratchDir, sdkDir } from './support.js';

const PDF = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
let server: TestServer;
let quire: Quire;
let key: string;
let dir: string;

beforeAll(async () => {
  // Private webhook and import URLs allowed: the endpoint and the file_url below are on loopback.
  server = await startTestServer({
    QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
    QUIRE_TRANSFERS_ALLOW_PRIVATE: 'true',
  });
  key = (await server.newAccount()).key;
  dir = await scratchDir('sdk');
  quire = new Quire({ url: server.url, apiKey: key, uploadStore: path.join(dir, 'tus.json') });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

function sdkInputs(tool: Tool): InputSource[] {
  return inputsFor(tool as unknown as PublishedTool).map((input) =>
    typeof input === 'string' ? input : { data: new Blob([input.data]), name: input.name },
  );
}

describe('the TypeScript SDK', () => {
  it('runs every available tool with its first published example to a downloaded result', async () => {
    const { data: catalogue } = await quire.tools.list();
    const available = catalogue.filter((t) => t.available);
    expect(available.length).toBeGreaterThan(15);
    const outcomes = await Promise.all(
      available.map(async (tool) => {
        const example =
          ((tool.options_schema.examples as Record<string, unknown>[] | undefined) ?? [{}])[0] ?? {};
        const options = await sampleOptions(tool as unknown as PublishedTool, example);
        const to = path.join(dir, `out-${tool.name}`);
        try {
          const { job, download } = await quire.run(tool.name, sdkInputs(tool), options, { to });
          return { tool: tool.name, status: job.status, bytes: download?.bytes, size: job.result?.size };
        } catch (error) {
          return { tool: tool.name, status: error instanceof QuireError ? error.code : String(error) };
        }
      }),
    );
    for (const outcome of outcomes) {
      expect(outcome, outcome.tool).toMatchObject({ status: 'succeeded' });
      expect(outcome.bytes, outcome.tool).toBe(outcome.size);
    }
  }, 240_000);

  it('runs a chained job, reporting the step it is on, to a result of the last step', async () => {
    const reports: Array<{ status: string; step?: { index: number; tool: string; count: number } }> = [];
    const to = path.join(dir, 'chained.pdf');
    const { job } = await quire.runSteps(
      [
        { tool: 'rotate', options: { angle: 90 } },
        { tool: 'compress', options: { level: 'high' } },
      ],
      [PDF],
      { to, onProgress: (p) => reports.push({ status: p.status, ...(p.step ? { step: p.step } : {}) }) },
    );
    expect(job.status).toBe('succeeded');
    expect(job.steps?.map((s) => s.tool)).toEqual(['rotate', 'compress']);
    expect(reports.at(-1)?.status).toBe('succeeded');
    for (const report of reports.filter((r) => r.step)) expect(report.step?.count).toBe(2);
    expect(execFileSync('qpdf', ['--show-npages', to]).toString().trim()).toBe('4');
  }, 120_000);

  it('creates a batch, waits for it and downloads the ZIP of its results', async () => {
    const batch = await quire.batches.create({
      tool: 'rotate',
      options: { angle: 180 },
      inputs: [PDF, PDF, { path: PDF, name: 'third.pdf' }],
    });
    expect(batch.total).toBe(3);
    const done = await quire.batches.wait(batch.id, { intervalMs: 250 });
    expect(done.counts.succeeded).toBe(3);
    const zip = path.join(dir, 'batch.zip');
    await quire.batches.download(batch.id, { to: zip });
    const listing = execFileSync('unzip', ['-Z1', zip]).toString().trim().split('\n');
    expect(listing).toHaveLength(3);
  }, 120_000);

  it('raises a failed job as a QuireError with the server code, and a refused option with its pointer', async () => {
    const broken = new Blob(['%PDF-1.7\nthis is not a PDF body at all\n']);
    const failed = await quire.run('compress', [broken], { level: 'high' }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(QuireError);
    expect(failed).toMatchObject({ code: 'pdf_corrupt', job: { status: 'failed' } });

    const refused = await quire
      .runSteps(
        [
          { tool: 'rotate', options: { angle: 90 } },
          { tool: 'compress', options: { level: 'extreme' as 'high' } },
        ],
        [PDF],
      )
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QuireError);
    expect(refused).toMatchObject({
      status: 400,
      code: 'invalid_options',
      pointer: '/steps/1/options/level',
      retryable: false,
    });
    expect((refused as QuireError).requestId).toMatch(/^req_/);
    expect((refused as QuireError).problem).toMatchObject({ code: 'invalid_options', status: 400 });
  }, 60_000);

  it('never shows the API key: not in an error, its stack, its JSON, nor the inspected client', async () => {
    const wrong = `${key.slice(0, -4)}AAAA`;
    const client = new Quire({ url: server.url, apiKey: wrong, retry: { maxRetries: 0 } });
    const error = await client.jobs.list().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
    const shown = [
      String(error),
      (error as Error).stack,
      JSON.stringify(error),
      inspect(error, { depth: 5 }),
      inspect(client),
      JSON.stringify(client),
    ].join('\n');
    expect(shown).not.toContain(wrong);
    expect(shown).not.toContain(wrong.split('_').at(-1));
  });

  it('reads the latest RateLimit headers after a request', async () => {
    await quire.jobs.list({ limit: 1 });
    expect(quire.rateLimit.limit).toBe(3000);
    expect(quire.rateLimit.remaining).toBeGreaterThan(0);
    expect(quire.rateLimit.windowSeconds).toBe(60);
  });

  it('types options per tool: a wrong option or value is a compile error (tsc on a file of @ts-expect-error)', () => {
    const file = path.join(import.meta.dirname, 'typed-options.fixture.ts');
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      skipLibCheck: true,
      types: ['node'],
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file?.getLineAndCharacterOfPosition(d.start ?? 0).line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
    // Every @ts-expect-error there is needed (else "Unused '@ts-expect-error' directive"), and the
    // correct calls compile.
    expect(diagnostics).toEqual([]);
  });

  it('has committed types equal to what `npm run generate` makes of the live document', async () => {
    const { renderSchema, schemaFile } = (await import(path.join(sdkDir, 'scripts', 'generate.mjs'))) as {
      renderSchema: (url: string) => Promise<string>;
      schemaFile: string;
    };
    const committed = await readFile(schemaFile, 'utf8');
    expect(await renderSchema(server.url), 'run `npm run generate` in clients/typescript').toBe(committed);
  });

  it('covers the admin and webhook routes: accounts, plans, keys, endpoints, secrets and redelivery', async () => {
    const account = await quire.accounts.create({ name: 'sdk', plan: 'pro' });
    expect(account.plan).toBe('pro');
    expect((await quire.accounts.update(account.id, { plan: 'free' })).plan).toBe('free');
    expect((await quire.accounts.get(account.id)).name).toBe('sdk');
    expect((await quire.accounts.list()).data.map((a) => a.id)).toContain(account.id);
    expect((await quire.accounts.plans()).data.map((p) => p.name)).toContain('business');
    const created = await quire.keys.create(account.id, { scopes: ['jobs:read'], name: 'ci' });
    expect(created.key).toMatch(/^qk_live_/);
    expect((await quire.keys.list(account.id)).data.map((k) => k.id)).toContain(created.id);
    await quire.keys.revoke(account.id, created.id);
    const revoked = await new Quire({ url: server.url, apiKey: created.key, retry: { maxRetries: 0 } }).jobs
      .list()
      .catch((e: unknown) => e);
    expect(revoked).toMatchObject({ status: 401 });

    const endpoint = await quire.webhooks.create({ url: 'http://127.0.0.1:9/quire', events: ['*'] });
    expect((await quire.webhooks.get(endpoint.id)).url).toBe('http://127.0.0.1:9/quire');
    expect((await quire.webhooks.update(endpoint.id, { description: 'sdk' })).description).toBe('sdk');
    expect((await quire.webhooks.rotateSecret(endpoint.id)).secret).not.toBe(endpoint.secret);
    expect((await quire.webhooks.list()).data.map((e) => e.id)).toContain(endpoint.id);
    expect((await quire.webhooks.deliveries(endpoint.id)).data).toEqual([]);
    const unknown = await quire.webhooks
      .redeliver(endpoint.id, 'msg_01JDQ3AAAAAAAAAAAAAAAAAAAA')
      .catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 404, code: 'not_found' });
    await quire.webhooks.delete(endpoint.id);
    const first = await quire.webhooks.jobSecret();
    expect((await quire.webhooks.rotateJobSecret()).secret).not.toBe(first.secret);
  });

  it('takes every kind of input in one job: path, Buffer, Node stream, Web stream, Blob, URL and upload id', async () => {
    const bytes = await readFile(PDF);
    const files = http.createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': bytes.length });
      response.end(bytes);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    try {
      const upload = await quire.uploads.upload(PDF);
      const port = (files.address() as AddressInfo).port;
      const to = path.join(dir, 'every-input.pdf');
      const { job } = await quire.run(
        'merge',
        [
          PDF,
          bytes,
          createReadStream(PDF),
          Readable.toWeb(createReadStream(PDF)) as ReadableStream<Uint8Array>,
          new Blob([bytes]),
          new URL(`http://127.0.0.1:${port}/remote.pdf`),
          { uploadId: upload.id },
        ],
        {},
        { to },
      );
      expect(job.input.files).toHaveLength(7);
      expect(execFileSync('qpdf', ['--show-npages', to]).toString().trim()).toBe('28');
    } finally {
      files.close();
    }
  }, 120_000);

  it('sends a tus upload in one streamed PATCH by default, and in tusChunkBytes pieces when set', async () => {
    const patches = async () => {
      const text = await (await fetch(new URL('/metrics', server.url))).text();
      return text
        .split('\n')
        .filter((l) => l.startsWith('quire_http_request_duration_seconds_count{method="PATCH"'))
        .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    };
    const size = (await readFile(PDF)).length;
    const before = await patches();
    const whole = await quire.uploads.upload(PDF);
    expect(await patches()).toBe(before + 1);
    const chunked = new Quire({
      url: server.url,
      apiKey: key,
      uploadStore: path.join(dir, 'tus-chunked.json'),
      tusChunkBytes: 10_000,
    });
    const pieces = await chunked.uploads.upload(PDF);
    expect(await patches()).toBe(before + 1 + Math.ceil(size / 10_000));
    for (const upload of [whole, pieces])
      expect(await quire.uploads.status(upload.id)).toEqual({ offset: size, length: size });
  });

  it('gives up waiting after timeoutMs with a QuireError `timeout`, and the job goes on', async () => {
    const job = await quire.jobs.create({ tool: 'ocr', inputs: [PDF] });
    const error = await quire.jobs.wait(job.id, { timeoutMs: 1, poll: true }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout', retryable: true });
    expect((await quire.jobs.wait(job.id)).status).toBe('succeeded');
  }, 120_000);
});
