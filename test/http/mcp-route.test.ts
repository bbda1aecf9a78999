// The /mcp route's HTTP surface (docs/agents.md "Remote"): stateless streamable HTTP behind the same
// auth as the API, 405 for the methods a stateless server does not serve, off with QUIRE_MCP_ENABLED.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile } from '../support/corpus.js';
import { type InjectServer, startInjectServer } from '../support/inject.js';

let server: InjectServer;
let off: InjectServer;
let key: string;
// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers, checked by the assertions
type Json = any;

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

beforeAll(async () => {
  [server, off] = await Promise.all([
    // A budget refilled so slowly (1000 an hour) that the count below is exact.
    startInjectServer({
      QUIRE_PLAN_BUSINESS_REQUESTS_PER_WINDOW: '1000',
      QUIRE_PLAN_BUSINESS_WINDOW_SECONDS: '3600',
      QUIRE_STREAMS_MAX_PER_KEY: '1',
      QUIRE_PUBLIC_BASE_URL: 'https://pdf.example.com/',
    }),
    startInjectServer({ QUIRE_MCP_ENABLED: 'false' }),
  ]);
  key = (await server.newAccount()).key;
});
afterAll(async () => {
  await server?.close();
  await off?.close();
});

/** A tools/call through /mcp; the answer's JSON-RPC result (the SSE `data:` line). */
async function callTool(apiKey: string, name: string, args: object): Promise<Record<string, Json>> {
  const response = await server.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...mcpHeaders, authorization: `Bearer ${apiKey}` },
    payload: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args } },
  });
  const data = response.body.split('\n').find((line) => line.startsWith('data: '))!;
  return (JSON.parse(data.slice(6)) as { result: Record<string, Json> }).result;
}

describe('/mcp', () => {
  it('initializes with a Bearer key or X-API-Key and issues no session id (stateless)', async () => {
    for (const auth of [{ authorization: `Bearer ${key}` }, { 'x-api-key': key }]) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...mcpHeaders, ...auth },
        payload: initialize,
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['mcp-session-id']).toBeUndefined();
      expect(response.headers['x-request-id']).toMatch(/^req_/);
      expect(response.body).toContain('"serverInfo":{"name":"quire"');
    }
  });

  it('answers an MCP transport error (no text/event-stream in Accept) with a JSON-RPC error, as the spec says', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${key}`,
      },
      payload: initialize,
    });
    expect(response.statusCode).toBe(406);
    expect(response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('answers a wrong key with 401 invalid_api_key', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...mcpHeaders, authorization: `Bearer ${key.slice(0, -4)}AAAA` },
      payload: initialize,
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'invalid_api_key' });
  });

  it('counts the MCP request and each API request its tool makes against the key’s rate limit', async () => {
    const own = (await server.newAccount()).key;
    const call = await server.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...mcpHeaders, authorization: `Bearer ${own}` },
      payload: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'get_job', arguments: { job_id: 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV' } },
      },
    });
    expect(call.body).toContain('not_found');
    const tools = await server.app.inject({
      url: '/api/v1/tools',
      headers: { authorization: `Bearer ${own}` },
    });
    // The POST /mcp, the tool's GET /api/v1/jobs/{id}, then this GET /api/v1/tools.
    expect(tools.headers.ratelimit).toMatch(/^"default";r=997;/);
  });

  it('reads the job plainly while the key holds every event stream it may, instead of failing', async () => {
    const own = (await server.newAccount()).key;
    const form = new FormData();
    form.append('tool', 'rotate');
    form.append('options', '{"angle":90}');
    form.append('file', new Blob([readFileSync(corpusFile('pypdf-samples__pdflatex-4-pages.pdf'))]), 'a.pdf');
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/jobs',
      headers: { authorization: `Bearer ${own}` },
      payload: form,
    });
    const jobId = (created.json() as { id: string }).id;
    const held = new AbortController();
    const stream = await server.app.inject({
      url: `/api/v1/jobs/${jobId}/events`,
      headers: { authorization: `Bearer ${own}` },
      payloadAsStream: true,
      signal: held.signal,
    });
    expect(stream.statusCode).toBe(200);
    try {
      const second = await server.app.inject({
        url: `/api/v1/jobs/${jobId}/events`,
        headers: { authorization: `Bearer ${own}` },
      });
      expect(second.json()).toMatchObject({ code: 'too_many_streams' });
      const started = Date.now();
      const result = await callTool(own, 'wait_for_job', { job_id: jobId, wait_seconds: 3 });
      expect(result.isError).not.toBe(true);
      expect(result.structuredContent.job).toMatchObject({ id: jobId, status: 'queued' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);
    } finally {
      held.abort();
    }
  });

  it('returns the created job and why it could not wait to a key without jobs:read', async () => {
    const { accountId } = await server.newAccount();
    const writeOnly = await server.keyFor(accountId, ['jobs:write']);
    const result = await callTool(writeOnly, 'run_rotate', {
      inputs: [{ file_url: 'https://example.com/a.pdf' }],
      options: { angle: 90 },
    });
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent).toMatchObject({
      job: { status: 'queued', tool: 'rotate' },
      wait_unavailable: { code: 'insufficient_scope', required_scope: 'jobs:read' },
    });
  });

  it('makes links absolute on QUIRE_PUBLIC_BASE_URL', async () => {
    const result = await callTool(key, 'start_upload', { filename: 'a.pdf', size: 1000 });
    expect(result.structuredContent.upload_url).toMatch(
      /^https:\/\/pdf\.example\.com\/api\/v1\/uploads\/upl_/,
    );
    expect(result.structuredContent.upload_id).toMatch(/^upl_/);
  });

  it('is left out of the OpenAPI document', async () => {
    const document = (await server.app.inject({ url: '/openapi.json' })).json() as { paths: object };
    expect(Object.keys(document.paths)).not.toContain('/mcp');
    expect(Object.keys(document.paths)).toContain('/api/v1/jobs');
  });

  it('answers GET and DELETE with 405 naming POST', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await server.app.inject({
        method,
        url: '/mcp',
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it('is 404 not_found with QUIRE_MCP_ENABLED=false', async () => {
    const offKey = (await off.newAccount()).key;
    const response = await off.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...mcpHeaders, authorization: `Bearer ${offKey}` },
      payload: initialize,
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found' });
  });
});
