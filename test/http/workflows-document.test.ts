// The workflows surface in the OpenAPI document (docs/api.md §2, §6, §11): batches and the job webhook
// secret as named operations with their answers, the transfer and steps parts of the job upload (and
// the batch upload, which reads the same parts), and the transfer fields of the job object.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { type InjectServer, startInjectServer } from '../support/inject.js';

// biome-ignore lint/suspicious/noExplicitAny: the test walks an untyped JSON document
type Json = Record<string, any>;
let server: InjectServer;
let client: Client;
let document: Json;

beforeAll(async () => {
  server = await startInjectServer();
  client = new Client(server.url, (await server.newAccount()).key, server.fetch);
  document = (await (await server.fetch(`${server.url}/openapi.json`)).json()) as Json;
});
afterAll(() => server.close());

const multipart = (op: Json) => op.requestBody.content['multipart/form-data'];

describe('the batch and job webhook secret operations', () => {
  it('are named for generated clients and list every answer', () => {
    const batches = document.paths['/api/v1/batches'].post;
    expect(batches.operationId).toBe('createBatch');
    expect(batches.responses['201'].headers).toHaveProperty('Location');
    expect(batches.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Batch',
    });
    expect(Object.keys(batches.responses)).toEqual(
      expect.arrayContaining(['400', '401', '403', '408', '409', '413', '415', '422', '429']),
    );
    const batch = document.paths['/api/v1/batches/{id}'];
    expect(batch.get.operationId).toBe('getBatch');
    expect(batch.get.responses['404'].description).toMatch(/not_found/);
    expect(document.paths['/api/v1/batches/{id}/cancel'].post.operationId).toBe('cancelBatch');
    const download = document.paths['/api/v1/batches/{id}/download'].get;
    expect(download.operationId).toBe('getBatchDownload');
    expect(download.responses['200'].content).toHaveProperty('application/zip');
    expect(download.responses['200'].headers).toHaveProperty('Content-Disposition');
    expect(download.responses['409'].description).toMatch(/job_not_ready/);
    const secret = document.paths['/api/v1/job-webhook-secret'].get;
    expect(secret.operationId).toBe('getJobWebhookSecret');
    expect(secret.tags).toEqual(['Webhooks']);
    const rotate = document.paths['/api/v1/job-webhook-secret/rotate'].post;
    expect(rotate.operationId).toBe('rotateJobWebhookSecret');
    expect(rotate.requestBody.required).toBe(false);
    expect(document.components.schemas.JobWebhookSecret.properties.object.const).toBe('job_webhook_secret');
    expect(Object.keys(document.components.schemas.Batch.properties)).toEqual(
      expect.arrayContaining(['id', 'status', 'total', 'counts', 'progress', 'links', 'jobs']),
    );
  });

  it('reads, rotates and replays the job webhook secret as the document says, never cached', async () => {
    const read = await client.fetch('/api/v1/job-webhook-secret');
    expect(read.headers.get('cache-control')).toBe('no-store');
    const first = (await read.json()) as { secret: string };
    expect(first.secret).toMatch(/^whsec_/);
    const headers = { 'content-type': 'application/json', 'idempotency-key': 'rotate-1' };
    const init = { method: 'POST', headers, body: JSON.stringify({ grace_period_seconds: 60 }) };
    const rotated = await client.fetch('/api/v1/job-webhook-secret/rotate', init);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    const second = (await rotated.json()) as { secret: string };
    expect(second.secret).toMatch(/^whsec_/);
    expect(second.secret).not.toBe(first.secret);
    const replay = await client.fetch('/api/v1/job-webhook-secret/rotate', init);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as { secret: string }).secret).toBe('[redacted]');
  });

  it('refuses an export part on a batch with a documented problem', async () => {
    const form = new FormData();
    form.set('tool', 'rotate');
    form.set('export', 'https://bucket.example.com/out.pdf?sig=1');
    form.append('file', new Blob(['%PDF-1.4\n']), 'a.pdf');
    const refused = await client.fetch('/api/v1/batches', { method: 'POST', body: form });
    expect(refused.status).toBe(400);
    const problem = (await refused.json()) as Json;
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors[0].field).toBe('export');
  });
});

describe('the job upload', () => {
  it('takes steps, file_url, export and webhook_url parts, the JSON ones with their encoding', () => {
    const media = multipart(document.paths['/api/v1/jobs'].post);
    const parts = media.schema.properties;
    expect(Object.keys(parts)).toEqual(
      expect.arrayContaining(['tool', 'options', 'steps', 'metadata', 'file_url', 'export', 'webhook_url']),
    );
    // Either part may name the job: neither is required by the schema; the description says so.
    expect(media.schema.required ?? []).not.toContain('tool');
    expect(media.schema.description).toContain('One of `tool` (with `options`), `steps` or `recipe`');
    expect(parts.recipe).toMatchObject({ type: 'string' });
    expect(media.encoding.recipe).toEqual({ contentType: 'text/plain' });
    // `steps` is one part holding a JSON array (generators send an array property as a part per item).
    expect(parts.steps.type).toBe('string');
    expect(parts.steps.contentMediaType).toBe('application/json');
    expect(parts.steps.contentSchema.maxItems).toBe(10);
    expect(parts.steps.contentSchema.items).toEqual({ $ref: '#/components/schemas/ChainStep' });
    // A URL, or the component as JSON text: a string part every generator can send.
    expect(parts.file_url.items.type).toBe('string');
    expect(parts.file_url.items.description).toContain('TransferSource');
    expect(parts.export.type).toBe('string');
    expect(parts.export.description).toContain('ExportTarget');
    expect(media.encoding.steps.contentType).toBe('application/json');
    expect(media.encoding.file_url.contentType).toMatch(/application\/json/);
    expect(media.encoding.export.contentType).toMatch(/application\/json/);
    const refusals = document.paths['/api/v1/jobs'].post.responses['400'].description;
    expect(refusals).toMatch(/webhook_url_not_allowed/);
  });

  it('is the batch upload too, without export, with upload_id parts one job each', () => {
    const job = multipart(document.paths['/api/v1/jobs'].post);
    const batch = multipart(document.paths['/api/v1/batches'].post);
    const { export: exported, file: jobFile, upload_id: jobUploads, ...jobParts } = job.schema.properties;
    const { file: batchFile, upload_id: batchUploads, ...batchParts } = batch.schema.properties;
    expect(exported).toBeDefined();
    expect(batchParts).toEqual(jobParts);
    expect(batchFile.items).toEqual(jobFile.items);
    // A batch's upload_id makes one job per upload, as its file parts do; the items are the same.
    expect(batchUploads.items).toEqual(jobUploads.items);
    expect(batchUploads.description).toContain('one job each');
    expect(batch.encoding).not.toHaveProperty('export');
    expect(batch.encoding).toHaveProperty('upload_id');
    expect(batch.examples).toEqual(job.examples);
  });

  it('shows the transfers on the job: input sources, export, webhook and batch_id', () => {
    const job = document.components.schemas.Job.properties;
    expect(Object.keys(job)).toEqual(expect.arrayContaining(['batch_id', 'export', 'webhook']));
    expect(job.export.properties.keep_result.type).toBe('boolean');
    const file = job.input.properties.files.items.properties;
    expect(file.source.properties.type.const).toBe('url');
    expect(file.source.properties).toHaveProperty('host');
  });
});
