// The OpenAPI document as code generators read it (issue 13): only real operations, each named and
// tagged, every answer with its schema and headers, the job upload per tool, the webhook events; the
// test client's conformance check really refuses what the document does not describe; /docs and GET /.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { type InjectServer, startInjectServer } from '../support/inject.js';
import { OpenApiCheck } from '../support/openapi-check.js';

// biome-ignore lint/suspicious/noExplicitAny: the test walks an untyped JSON document
type Json = Record<string, any>;
let server: InjectServer;
let document: Json;
let operations: { path: string; method: string; op: Json }[];

beforeAll(async () => {
  server = await startInjectServer();
  document = (await (await server.fetch(`${server.url}/openapi.json`)).json()) as Json;
  operations = Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })),
  );
});
afterAll(() => server.close());

describe('operations', () => {
  it('lists only real operations, each with a unique camelCase operationId, a tag and a summary', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { op } of operations) {
      expect(op.operationId).toMatch(/^[a-z][a-zA-Z]+$/);
      expect([
        'Jobs',
        'Uploads',
        'Recipes',
        'Tools',
        'Files',
        'Webhooks',
        'Accounts',
        'Operations',
      ]).toContain(op.tags[0]);
      expect(op.summary).toBeTruthy();
    }
    expect(ids).toEqual(
      expect.arrayContaining(['createJob', 'getJob', 'listJobs', 'cancelJob', 'deleteJob', 'getJobDownload']),
    );
    expect(ids).toEqual(expect.arrayContaining(['streamJobEvents', 'listTools', 'getFile', 'getHome']));
    // The 405 answers are not operations.
    expect(document.paths['/api/v1/tools'].post).toBeUndefined();
    expect(document.paths['/api/v1/jobs/{id}/download'].put).toBeUndefined();
  });

  it('answers every error with the shared Problem as application/problem+json', () => {
    for (const { op } of operations) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        if (Number(status) < 400 || op.operationId === 'getReadiness') continue;
        expect(Object.keys(response.content), `${op.operationId} ${status}`).toEqual([
          'application/problem+json',
        ]);
        expect(response.content['application/problem+json'].schema).toEqual({
          $ref: '#/components/schemas/Problem',
        });
      }
    }
    expect(document.components.schemas.ErrorCode.enum).toContain('idempotency_key_in_use');
  });

  it('secures keyed operations with both schemes and leaves public ones open', () => {
    const byId = Object.fromEntries(operations.map((o) => [o.op.operationId, o.op]));
    expect(byId.getJob.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    expect(byId.getFile.security).toEqual([]);
    expect(byId.getHealth.security).toEqual([]);
    expect(byId.getJob.responses['200'].headers).toHaveProperty('RateLimit');
    expect(byId.listJobs.responses['429'].headers).toHaveProperty('Retry-After');
  });

  it('takes Idempotency-Key on every keyed POST', () => {
    for (const { method, op } of operations.filter((o) => o.method === 'post')) {
      expect(op.parameters, op.operationId).toContainEqual({
        $ref: '#/components/parameters/IdempotencyKey',
      });
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['409', '422']));
      expect(method).toBe('post');
    }
  });
});

describe('the job upload', () => {
  it('is multipart with tool, options, metadata and repeated binary files, 201 with Location', () => {
    const create = document.paths['/api/v1/jobs'].post;
    const media = create.requestBody.content['multipart/form-data'];
    expect(media.schema.properties.file).toEqual(
      expect.objectContaining({ type: 'array', items: { type: 'string', format: 'binary' } }),
    );
    expect(media.encoding.options.contentType).toBe('application/json');
    // One part holding the JSON array: generators send an array property as one part per item.
    expect(media.schema.properties.steps).toMatchObject({
      type: 'string',
      contentMediaType: 'application/json',
    });
    expect(media.encoding.steps.contentType).toBe('application/json');
    expect(create.responses['201'].headers).toHaveProperty('Location');
    expect(create.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Job',
    });
  });

  it('has an options schema per tool and an example per tool that validates against it', () => {
    const media = document.paths['/api/v1/jobs'].post.requestBody.content['multipart/form-data'];
    const tools: string[] = media.schema.properties.tool.enum;
    expect(tools.length).toBeGreaterThan(20);
    expect(document.components.schemas.CompressOptions.properties).toHaveProperty('level');
    const ajv = new Ajv2020({ strict: false });
    for (const tool of tools) {
      const name = `${tool.replace(/(^|-)([a-z0-9])/g, (_m, _d, c: string) => c.toUpperCase())}Options`;
      const example = media.examples[tool].value;
      expect(example.tool).toBe(tool);
      expect(ajv.validate(document.components.schemas[name], example.options), tool).toBe(true);
      // Rules between options stay in the catalogue: generators model a plain object of properties.
      const keywords = Object.keys(document.components.schemas[name]);
      expect(
        keywords.filter((k) => ['anyOf', 'oneOf', 'allOf', 'not', 'if'].includes(k)),
        tool,
      ).toEqual([]);
    }
  });
});

describe('webhooks', () => {
  it('documents each job event with its payload and the Standard Webhooks headers', () => {
    for (const type of ['job.created', 'job.processing', 'job.succeeded', 'job.failed', 'job.canceled']) {
      const post = document.webhooks[type].post;
      // Not the Webhooks tag of the endpoints' operations, and not an operation clients call.
      expect(post.tags).toEqual(['Webhook events']);
      expect(post['x-internal']).toBe(true);
      expect(post.parameters.map((p: Json) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      const ref = post.requestBody.content['application/json'].schema.$ref as string;
      const schema = document.components.schemas[ref.split('/').pop()!];
      expect(schema.properties.type.const).toBe(type);
      expect(schema.properties.data).toEqual({ $ref: '#/components/schemas/Job' });
    }
  });
});

describe('the conformance check of the test client', () => {
  const job = {
    id: 'job_01M7YVX7V47XR1PMB4JRZN66H8',
    object: 'job',
    tool: 'rotate',
    options: { angle: 90 },
    status: 'queued',
    progress: 0,
    attempts: 0,
    input: { files: [] },
    metadata: {},
    created_at: '2026-11-21T10:54:50Z',
    links: { self: '/x', download: '/x/download' },
  };
  const answer = (body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status: 200,
      // A job answer carries its ETag (docs/api.md §2), which the document marks as required.
      headers: { 'content-type': 'application/json', 'x-request-id': 'req_1', etag: '"e1"', ...headers },
    });
  const url = new URL('http://quire.inject/api/v1/jobs/job_01M7YVX7V47XR1PMB4JRZN66H8');

  it('accepts a documented answer and refuses an undocumented field, header or status', async () => {
    const check = new OpenApiCheck(document);
    expect(await check.check('GET', url, answer(job))).toEqual([]);
    expect((await check.check('GET', url, answer({ ...job, surprise: 1 }))).join()).toMatch(/surprise/);
    expect((await check.check('GET', url, answer(job, { 'x-extra': '1' }))).join()).toMatch(/x-extra/);
    expect((await check.check('GET', url, answer({ ...job, status: 'done' }))).join()).toMatch(/status/);
    const teapot = new Response('{}', { status: 418, headers: { 'content-type': 'application/json' } });
    expect((await check.check('GET', url, teapot)).join()).toMatch(/not documented/);
  });
});

describe('GET / and /docs', () => {
  it('answers HTML to a browser and JSON links to a program', async () => {
    const client = new Client(server.url, undefined, server.fetch);
    const html = await client.fetch('/', { headers: { accept: 'text/html,*/*;q=0.8' } });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    // The web app's page (web/dist), whose links are relative so it works under a sub-path.
    expect(await html.text()).toContain('href="docs/"');
    const json = await client.fetch('/', { headers: { accept: 'application/json' } });
    const body = (await json.json()) as Json;
    expect(body.links.openapi.href).toBe('/openapi.json');
    expect(Object.keys(body.links)).toEqual(['docs', 'openapi', 'tools', 'health', 'ready']);
    const weighted = await client.fetch('/', { headers: { accept: 'text/html;q=0.5, application/json' } });
    expect(weighted.headers.get('content-type')).toMatch(/^application\/json/);
    const noAccept = await client.fetch('/');
    expect(noAccept.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('serves the reference page from this server only, under a CSP without upgrade-insecure-requests', async () => {
    const page = await server.fetch(`${server.url}/docs/`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/upgrade-insecure-requests/);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const script = await server.fetch(`${server.url}/docs/js/scalar.js`);
    expect(script.status).toBe(200);
  });
});
