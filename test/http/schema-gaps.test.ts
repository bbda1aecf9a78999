// Issue 26, finding 6: gaps Schemathesis found between /openapi.json and the server, each checked
// both ways (what the document says, what the server does): the Idempotency-Key pattern, and the
// 414 and 431 answers of the download route, whose token is the one path parameter long enough.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';

type Operation = { parameters?: Array<{ $ref?: string }>; responses: Record<string, unknown> };
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: {
    parameters: Record<string, { schema: { pattern: string; minLength: number; maxLength: number } }>;
  };
}

let server: TestServer;
let client: Client;
let document: Document;

beforeAll(async () => {
  server = await startTestServer({}, { workers: false });
  client = new Client(server.url, (await server.newAccount()).key);
  document = (await (await fetch(`${server.url}/openapi.json`)).json()) as Document;
});
afterAll(() => server.close());

describe('Idempotency-Key', () => {
  it('has a pattern every key the server takes matches, and the server refuses the keys it does not match', async () => {
    const { schema } = document.components.parameters.IdempotencyKey!;
    const pattern = new RegExp(schema.pattern);
    const documented = (key: string) =>
      key.length >= schema.minLength && key.length <= schema.maxLength && pattern.test(key);
    const pdf = await readFile(corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf'));
    const send = async (key: string) =>
      client.fetch('/api/v1/jobs', {
        method: 'POST',
        body: await client.form({ tool: 'compress', files: [{ name: 'a.pdf', data: pdf }] }),
        headers: { 'idempotency-key': key },
      });
    for (const key of ['order-17', 'a key with spaces', '"an sf-string"', 'x'.repeat(255)]) {
      expect(documented(key), key).toBe(true);
      const response = await send(key);
      expect(response.status, `${key}: ${await response.text()}`).toBeLessThan(400);
    }
    for (const key of ['caf\u00e9', 'x'.repeat(256), '\u00a0']) {
      expect(documented(key), key).toBe(false);
      const response = await send(key);
      expect(response.status, key).toBe(400);
      expect(((await response.json()) as { code: string }).code).toBe('invalid_idempotency_key');
    }
  });
});

describe('GET /api/v1/files/{token}', () => {
  it('documents 414 uri_too_long and 431 headers_too_large, and answers a token over the router’s segment limit with 414', async () => {
    const responses = document.paths['/api/v1/files/{token}']!.get!.responses;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['414', '431']));
    const response = await fetch(`${server.url}/api/v1/files/${'a'.repeat(5_000)}`);
    expect(response.status).toBe(414);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await response.json()) as { code: string }).code).toBe('uri_too_long');
  });
});
