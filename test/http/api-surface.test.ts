// The API's surface through the production app (inject tier, no workers): /openapi.json is valid
// OpenAPI 3.1, GET /api/v1/tools matches the schema that document gives for it, every tool's schema
// examples validate, counter-examples generated from each schema are refused (400 invalid_options,
// a JSON pointer per error) before anything reaches storage, and the framework's edges (unknown
// routes, wrong methods, wrong media types) answer problem+json with a request id (docs/api.md §7).
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { counterExamples } from '../support/counter-examples.js';
import { type InjectServer, startInjectServer } from '../support/inject.js';
import { inputsFor, type PublishedTool } from '../support/tool-samples.js';

let server: InjectServer;
let client: Client;
let published: PublishedTool[];

beforeAll(async () => {
  server = await startInjectServer();
  client = new Client(server.url, (await server.newAccount()).key, server.fetch);
  const body = (await (await client.fetch('/api/v1/tools')).json()) as { data: PublishedTool[] };
  published = body.data;
});
afterAll(() => server.close());

async function problem(response: Response, status: number, code: string) {
  expect(response.status, await response.clone().text()).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({
    status,
    code,
    type: expect.stringMatching(/^https:\/\//),
    title: expect.any(String),
  });
  return body;
}

async function storedFiles(): Promise<string[]> {
  const dir = path.join(server.dataDir, 'files');
  return (await readdir(dir, { recursive: true }).catch(() => [] as string[])).sort();
}

describe('OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const document = (await (await server.fetch(`${server.url}/openapi.json`)).json()) as Record<
      string,
      unknown
    >;
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes GET /api/v1/tools, and the live response validates against that schema', async () => {
    const validator = new Validator();
    await validator.validate(
      (await (await server.fetch(`${server.url}/openapi.json`)).json()) as Record<string, unknown>,
    );
    const document = validator.resolveRefs() as {
      paths: Record<
        string,
        { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }
      >;
    };
    const schema = document.paths['/api/v1/tools']?.get.responses['200']?.content['application/json']?.schema;
    expect(schema).toBeDefined();
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema!);
    const body = await (await client.fetch('/api/v1/tools')).json();
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  });

  it('publishes an options schema that compiles, with examples valid against it, for every tool', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const tool of published) {
      const validate = ajv.compile(tool.options_schema);
      const examples = tool.options_schema.examples as unknown[] | undefined;
      expect(examples ?? [], `${tool.name} publishes no examples`).not.toHaveLength(0);
      for (const example of examples ?? []) {
        expect(validate(structuredClone(example)), `${tool.name} ${JSON.stringify(example)}`).toBe(true);
      }
    }
  });
});

describe('option validation over HTTP', () => {
  // No workers run here, so the storage listing can only change through these requests.
  it('refuses generated counter-examples with 400 invalid_options and pointers, storing nothing', async () => {
    const before = await storedFiles();
    let checked = 0;
    for (const tool of published.filter((t) => t.available)) {
      for (const bad of counterExamples(tool.options_schema)) {
        const response = await client.createJob({
          tool: tool.name,
          options: bad.options,
          files: inputsFor(tool),
        });
        const body = (await response.json()) as { code: string; errors?: { pointer?: string }[] };
        const label = `${tool.name} ${bad.kind} ${JSON.stringify(bad.options)}`;
        expect(response.status, label).toBe(400);
        expect(body.code, label).toBe('invalid_options');
        expect(body.errors?.length, label).toBeGreaterThan(0);
        for (const error of body.errors ?? []) expect(error.pointer, label).toMatch(/^\/options(\/|$)/);
        if (bad.pointer)
          expect(
            body.errors?.map((e) => e.pointer),
            label,
          ).toContain(bad.pointer);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(await storedFiles()).toEqual(before);
  });
});

describe('input names', () => {
  it('drops bidi controls, zero-width and C1 characters from an uploaded file name', async () => {
    const pdf =
      '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n';
    const created = await client.submit({
      tool: 'info',
      files: [{ name: 'report\u202Efdp.exe\u200B\u0085\u2067.pdf', data: pdf }],
    });
    expect((created as unknown as { input: { files: Array<{ name: string }> } }).input.files[0]!.name).toBe(
      'reportfdp.exe.pdf',
    );
  });
});

describe('framework edges are problem+json too', () => {
  it('answers unknown routes with 404, a request id and an instance naming the request, not the path', async () => {
    const response = await client.fetch('/api/v1/nothing-here/secret-token-like');
    const body = await problem(response, 404, 'not_found');
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^req_/);
    expect(body.instance).toBe(`urn:quire:request:${id}`);
    expect(JSON.stringify(body)).not.toContain('secret-token-like');
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await client.fetch('/api/v1/jobs', { method: 'PUT' });
    await problem(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toContain('POST');
  });

  it('answers 405 to any method a known path does not serve, operations paths and TRACE included', async () => {
    for (const [method, url] of [
      ['TRACE', '/healthz'],
      ['TRACE', '/api/v1/webhooks'],
      ['OPTIONS', '/metrics'],
      ['PROPFIND', '/'],
      ['DELETE', '/openapi.json'],
    ] as const) {
      const response = await server.app.inject({ method: method as 'GET', url });
      expect(response.statusCode, `${method} ${url}`).toBe(405);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({ code: 'method_not_allowed' });
      expect(response.headers.allow).toContain('GET');
    }
    const unknown = await server.app.inject({ method: 'TRACE' as 'GET', url: '/nothing-here' });
    expect(unknown.statusCode).toBe(404);
    const head = await server.app.inject({ method: 'HEAD', url: '/healthz' });
    expect(head.statusCode).toBe(200);
  });

  it('answers 415 for a JSON body', async () => {
    const response = await client.fetch('/api/v1/jobs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'rotate' }),
    });
    await problem(response, 415, 'unsupported_media_type');
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const echoed = await server.fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123');
    const replaced = await server.fetch(`${server.url}/healthz`, {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
