// docs/api.md §7 at the framework's edges, through the production app (inject tier): unknown routes,
// wrong methods and wrong media types answer problem+json, and every answer carries a request id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { type InjectServer, startInjectServer } from '../support/inject.js';

let server: InjectServer;
let client: Client;

beforeAll(async () => {
  server = await startInjectServer();
  client = new Client(server.url, (await server.newAccount()).key, server.fetch);
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

describe('framework edges are problem+json too', () => {
  it('answers unknown routes with 404 and a request id', async () => {
    const response = await client.fetch('/api/v1/nothing-here');
    await problem(response, 404, 'not_found');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await client.fetch('/api/v1/jobs', { method: 'PUT' });
    await problem(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toContain('POST');
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
