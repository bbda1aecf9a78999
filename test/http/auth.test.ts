// docs/api.md §1 through the production app (inject tier): 401 with a challenge, 403 with the missing
// scope, 404 across accounts. One real job runs first, so the download checks meet a real result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { type InjectServer, startInjectServer } from '../support/inject.js';

let server: InjectServer;
let owner: Client;
let jobId: string;
const client = (key?: string) => new Client(server.url, key, server.fetch);

beforeAll(async () => {
  server = await startInjectServer({}, { workers: true });
  owner = client((await server.newAccount()).key);
  const job = await owner.run({
    tool: 'rotate',
    options: { angle: 90 },
    files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
  });
  expect(job.status).toBe('succeeded');
  jobId = job.id;
});
afterAll(() => server.close());

async function expectProblem(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code });
  expect(body.request_id).toBe(response.headers.get('x-request-id'));
  return body;
}

describe('authentication and scopes', () => {
  it('answers 401 unauthenticated with a Bearer challenge when no key is sent', async () => {
    const response = await client().fetch('/api/v1/jobs');
    await expectProblem(response, 401, 'unauthenticated');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="quire"');
  });

  it('answers 401 unauthenticated for a malformed key and 401 invalid_api_key for an unknown one', async () => {
    const malformed = await client('not-a-key').fetch('/api/v1/jobs');
    await expectProblem(malformed, 401, 'unauthenticated');
    expect(malformed.headers.get('www-authenticate')).toBe('Bearer realm="quire"');
    const unknown = await client(`qk_live_ABCDEFGH_${'x'.repeat(43)}`).fetch('/api/v1/jobs');
    await expectProblem(unknown, 401, 'invalid_api_key');
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer realm="quire"');
  });

  it('answers 401 invalid_api_key for a right key id with a wrong secret', async () => {
    const wrong = `${owner.key!.slice(0, -4)}abcd`;
    await expectProblem(await client(wrong).fetch('/api/v1/jobs'), 401, 'invalid_api_key');
  });

  it('accepts the key in X-API-Key as well', async () => {
    const response = await server.fetch(`${server.url}/api/v1/jobs`, {
      headers: { 'x-api-key': owner.key! },
    });
    expect(response.status).toBe(200);
  });

  it('refuses a revoked key', async () => {
    const { accountId } = await server.newAccount();
    const key = await server.keyFor(accountId, ['jobs:read']);
    const keyId = key.split('_')[2]!;
    expect((await client(key).fetch('/api/v1/jobs')).status).toBe(200);
    await server.runtime.db.accounts.revokeKey(keyId);
    await expectProblem(await client(key).fetch('/api/v1/jobs'), 401, 'invalid_api_key');
  });

  it('answers 403 insufficient_scope when creating a job without jobs:write', async () => {
    const { accountId } = await server.newAccount();
    const reader = client(await server.keyFor(accountId, ['jobs:read', 'results:read']));
    const body = await expectProblem(
      await reader.createJob({
        tool: 'rotate',
        options: { angle: 90 },
        files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
      }),
      403,
      'insufficient_scope',
    );
    expect(body.required_scope).toBe('jobs:write');
  });

  it('answers 403 insufficient_scope when downloading without results:read', async () => {
    const accountId = (await server.runtime.db.accounts.listKeys()).find((k) =>
      owner.key!.includes(k.keyId),
    )!.accountId;
    const dashboard = client(await server.keyFor(accountId, ['jobs:read']));
    expect((await dashboard.fetch(`/api/v1/jobs/${jobId}`)).status).toBe(200);
    const body = await expectProblem(
      await dashboard.fetch(`/api/v1/jobs/${jobId}/download`),
      403,
      'insufficient_scope',
    );
    expect(body.required_scope).toBe('results:read');
  });

  it('answers 404 for another account’s job on every job route', async () => {
    const stranger = client((await server.newAccount()).key);
    await expectProblem(await stranger.fetch(`/api/v1/jobs/${jobId}`), 404, 'not_found');
    await expectProblem(await stranger.fetch(`/api/v1/jobs/${jobId}/download`), 404, 'not_found');
    await expectProblem(
      await stranger.fetch(`/api/v1/jobs/${jobId}/cancel`, { method: 'POST' }),
      404,
      'not_found',
    );
    await expectProblem(
      await stranger.fetch(`/api/v1/jobs/${jobId}`, { method: 'DELETE' }),
      404,
      'not_found',
    );
    const list = (await (await stranger.fetch('/api/v1/jobs')).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
    expect((await owner.fetch(`/api/v1/jobs/${jobId}`)).status).toBe(200);
  });
});
