// Recipes end to end (docs/api.md §13) over real HTTP, the real database and engines: save, read,
// replace and delete with versions; jobs and batches by recipe record the version they ran; steps that
// do not validate are refused with pointers, at saving and (for a recipe saved before the tools
// changed) at running; another account's recipe is 404 everywhere; scopes and Idempotency-Key.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { useTestServer } from '../support/use-test-server.js';

const small = readFileSync(corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf'));

interface RecipeBody {
  id: string;
  object: 'recipe';
  name: string;
  version: number;
  latest_version: number;
  steps: Array<{ tool: string; options: Record<string, unknown> }>;
}
interface Problem {
  code: string;
  errors?: Array<{ pointer?: string; field?: string; detail: string }>;
  required_scope?: string;
  recipe?: string;
}

const rotate = (angle: number) => [{ tool: 'rotate', options: { angle } }];

async function send(client: Client, method: string, path: string, body?: unknown, headers = {}) {
  return client.fetch(path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function saved(client: Client, name: string, steps: unknown): Promise<RecipeBody> {
  const response = await send(client, 'POST', '/api/v1/recipes', { name, steps });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as RecipeBody;
}

function jobForm(recipe: string, files = 1, path = 'job'): FormData {
  const form = new FormData();
  form.set('recipe', recipe);
  for (let i = 0; i < files; i++) form.append('file', new Blob([small]), `${path}-${i + 1}.pdf`);
  return form;
}

let other: Client;

const quire = useTestServer({ QUIRE_RECIPE_MAX_VERSIONS: '3' });
beforeAll(async () => {
  // Low enough for the Idempotency-Key test's recipe to reach it.
  other = new Client(quire.server.url, (await quire.server.newAccount()).key);
});

describe('recipes', () => {
  it('saves version 1, replaces into version 2 (version 1 still readable), lists, deletes every version', async () => {
    const created = await saved(quire.client, 'turn-page', rotate(90));
    expect(created).toMatchObject({ object: 'recipe', name: 'turn-page', version: 1, latest_version: 1 });
    expect(created.id).toMatch(/^rcp_[0-9A-Z]{26}$/);
    const taken = await send(quire.client, 'POST', '/api/v1/recipes', {
      name: 'turn-page',
      steps: rotate(180),
    });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as Problem).code).toBe('recipe_name_taken');

    const replaced = await send(quire.client, 'PUT', '/api/v1/recipes/turn-page', { steps: rotate(180) });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ id: created.id, version: 2, latest_version: 2 });
    const latest = (await (await quire.client.fetch(`/api/v1/recipes/${created.id}`)).json()) as RecipeBody;
    expect(latest).toMatchObject({ version: 2, steps: rotate(180) });
    const first = (await (await quire.client.fetch('/api/v1/recipes/turn-page@1')).json()) as RecipeBody;
    expect(first).toMatchObject({ version: 1, latest_version: 2, steps: rotate(90) });
    expect((await quire.client.fetch('/api/v1/recipes/turn-page@3')).status).toBe(404);

    const list = (await (await quire.client.fetch('/api/v1/recipes?limit=100')).json()) as {
      data: RecipeBody[];
    };
    expect(list.data.filter((r) => r.name === 'turn-page').map((r) => r.version)).toEqual([2]);

    expect((await send(quire.client, 'DELETE', '/api/v1/recipes/turn-page@1')).status).toBe(400);
    expect((await quire.client.fetch('/api/v1/recipes/turn-page', { method: 'DELETE' })).status).toBe(204);
    for (const ref of ['turn-page', 'turn-page@1', created.id])
      expect((await quire.client.fetch(`/api/v1/recipes/${ref}`)).status).toBe(404);
    // The name is free again: a new recipe, from version 1.
    const again = await saved(quire.client, 'turn-page', rotate(270));
    expect(again).toMatchObject({ version: 1 });
    expect(again.id).not.toBe(created.id);
  });

  it('a job by name runs the newest version and records it; name@1 after a replace runs version 1', async () => {
    const recipe = await saved(quire.client, 'scan-cleanup', [
      { tool: 'rotate', options: { angle: 90 } },
      { tool: 'compress', options: { level: 'low' } },
    ]);
    await send(quire.client, 'PUT', '/api/v1/recipes/scan-cleanup', {
      steps: [{ tool: 'rotate', options: { angle: 180 } }, { tool: 'compress' }],
    });
    const run = async (ref: string) => {
      const response = await quire.client.fetch('/api/v1/jobs', { method: 'POST', body: jobForm(ref) });
      expect(response.status, await response.clone().text()).toBe(201);
      return quire.client.waitFor(((await response.json()) as JobBody).id, 120);
    };
    const newest = await run('scan-cleanup');
    expect(newest.status).toBe('succeeded');
    expect(newest.recipe).toEqual({ id: recipe.id, name: 'scan-cleanup', version: 2 });
    expect(newest).toMatchObject({ tool: 'rotate', options: { angle: 180 } });
    const pinned = await run('scan-cleanup@1');
    expect(pinned.status).toBe('succeeded');
    expect(pinned.recipe).toEqual({ id: recipe.id, name: 'scan-cleanup', version: 1 });
    expect(pinned.steps).toEqual([
      { tool: 'rotate', options: { angle: 90 } },
      { tool: 'compress', options: expect.objectContaining({ level: 'low' }) },
    ]);
    const byId = await run(`${recipe.id}@1`);
    expect(byId.recipe).toEqual({ id: recipe.id, name: 'scan-cleanup', version: 1 });
    // A deleted recipe leaves the jobs that ran it as they were.
    await quire.client.fetch('/api/v1/recipes/scan-cleanup', { method: 'DELETE' });
    const after = (await (await quire.client.fetch(`/api/v1/jobs/${pinned.id}`)).json()) as JobBody;
    expect(after.recipe).toEqual({ id: recipe.id, name: 'scan-cleanup', version: 1 });
  });

  it('refuses steps that do not validate with a pointer, and secret options, when saving', async () => {
    const refused = async (steps: unknown) => {
      const response = await send(quire.client, 'POST', '/api/v1/recipes', { name: 'bad-one', steps });
      expect(response.status).toBe(400);
      return (await response.json()) as Problem;
    };
    const option = await refused([
      { tool: 'rotate', options: { angle: 90 } },
      { tool: 'compress', options: { foo: 1 } },
    ]);
    expect(option.code).toBe('invalid_options');
    expect(option.errors).toContainEqual({
      pointer: '/steps/1/options/foo',
      detail: 'is not a known option',
    });
    const tool = await refused([{ tool: 'rotate' }, { tool: 'no-such-tool' }]);
    expect(tool).toMatchObject({ code: 'unknown_tool', errors: [{ pointer: '/steps/1/tool' }] });
    const secret = await refused([{ tool: 'protect', options: { user_password: 'Pw-not-kept-1' } }]);
    expect(secret.code).toBe('invalid_options');
    expect(secret.errors?.[0]?.pointer).toBe('/steps/0/options/user_password');
    expect(JSON.stringify(secret)).not.toContain('Pw-not-kept-1');
    const empty = await refused([]);
    expect(empty.errors).toContainEqual({ pointer: '/steps', detail: 'must hold 1 to 10 steps' });
    const name = await send(quire.client, 'POST', '/api/v1/recipes', {
      name: 'Has Spaces',
      steps: rotate(90),
    });
    expect(name.status).toBe(400);
    expect(((await name.json()) as Problem).errors?.[0]?.pointer).toBe('/name');
    const idLike = await send(quire.client, 'POST', '/api/v1/recipes', {
      name: 'rcp_lookalike',
      steps: rotate(90),
    });
    expect(idLike.status).toBe(400);
    expect(((await idLike.json()) as Problem).errors?.[0]?.pointer).toBe('/name');
  });

  it('a recipe saved before its tools changed fails the job request with recipe_outdated and a pointer', async () => {
    const { accountId, key } = await quire.server.newAccount();
    // Saved straight into the store, as an option the compress tool no longer has would have been.
    await quire.server.runtime.db.recipes.create({
      id: 'rcp_01JAAAAAAAAAAAAAAAAAAAAAAA',
      accountId,
      name: 'old-compress',
      steps: [
        { tool: 'rotate', options: { angle: 90 } },
        { tool: 'compress', options: { removed_option: true } },
      ],
      createdAt: Date.now(),
    });
    const owner = new Client(quire.server.url, key);
    const response = await owner.fetch('/api/v1/jobs', { method: 'POST', body: jobForm('old-compress') });
    expect(response.status).toBe(422);
    const problem = (await response.json()) as Problem;
    expect(problem).toMatchObject({ code: 'recipe_outdated', recipe: 'old-compress@1' });
    expect(problem.errors).toContainEqual({
      pointer: '/steps/1/options/removed_option',
      detail: 'is not a known option',
    });
    const jobs = (await (await owner.fetch('/api/v1/jobs')).json()) as { data: unknown[] };
    expect(jobs.data).toEqual([]);
  });

  it('another account’s recipe is 404 to get, replace, delete and to a job or batch naming it', async () => {
    const mine = await saved(quire.client, 'private-one', rotate(90));
    for (const ref of ['private-one', mine.id, `${mine.id}@1`]) {
      expect((await other.fetch(`/api/v1/recipes/${ref}`)).status).toBe(404);
      expect(
        (await send(other, 'PUT', `/api/v1/recipes/${ref.split('@')[0]}`, { steps: rotate(180) })).status,
      ).toBe(404);
      expect((await other.fetch(`/api/v1/recipes/${ref.split('@')[0]}`, { method: 'DELETE' })).status).toBe(
        404,
      );
      const job = await other.fetch('/api/v1/jobs', { method: 'POST', body: jobForm(ref) });
      expect(job.status).toBe(404);
      expect(((await job.json()) as Problem).code).toBe('recipe_not_found');
    }
    const batch = await other.fetch('/api/v1/batches', { method: 'POST', body: jobForm('private-one', 2) });
    expect(batch.status).toBe(404);
    const still = (await (await quire.client.fetch('/api/v1/recipes/private-one')).json()) as RecipeBody;
    expect(still).toMatchObject({ version: 1, steps: rotate(90) });
  });

  it('reads need jobs:read, writes and runs need jobs:write', async () => {
    const { accountId } = await quire.server.newAccount();
    const reader = new Client(quire.server.url, await quire.server.keyFor(accountId, ['jobs:read']));
    const writer = new Client(quire.server.url, await quire.server.keyFor(accountId, ['jobs:write']));
    const created = await send(writer, 'POST', '/api/v1/recipes', { name: 'scoped', steps: rotate(90) });
    expect(created.status).toBe(201);
    const refusedWrite = await send(reader, 'POST', '/api/v1/recipes', { name: 'nope', steps: rotate(90) });
    expect(refusedWrite.status).toBe(403);
    expect(((await refusedWrite.json()) as Problem).required_scope).toBe('jobs:write');
    expect((await send(reader, 'PUT', '/api/v1/recipes/scoped', { steps: rotate(180) })).status).toBe(403);
    expect((await reader.fetch('/api/v1/recipes/scoped', { method: 'DELETE' })).status).toBe(403);
    expect((await reader.fetch('/api/v1/jobs', { method: 'POST', body: jobForm('scoped') })).status).toBe(
      403,
    );
    expect((await reader.fetch('/api/v1/recipes/scoped')).status).toBe(200);
    const refusedRead = await writer.fetch('/api/v1/recipes');
    expect(refusedRead.status).toBe(403);
    expect(((await refusedRead.json()) as Problem).required_scope).toBe('jobs:read');
  });

  it('a batch by recipe makes one job per file, each recording the version', async () => {
    const recipe = await saved(quire.client, 'batch-turn', rotate(90));
    const response = await quire.client.fetch('/api/v1/batches', {
      method: 'POST',
      body: jobForm('batch-turn', 2, 'b'),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    const batch = (await response.json()) as { tool: string; jobs: JobBody[] };
    expect(batch.tool).toBe('rotate');
    expect(batch.jobs.map((j) => j.recipe)).toEqual([
      { id: recipe.id, name: 'batch-turn', version: 1 },
      { id: recipe.id, name: 'batch-turn', version: 1 },
    ]);
  });

  it('refuses a recipe part beside tool, options or steps, and a malformed reference', async () => {
    await saved(quire.client, 'one-form', rotate(90));
    for (const [name, value] of [
      ['tool', 'rotate'],
      ['steps', JSON.stringify(rotate(90))],
    ] as const) {
      for (const order of ['before', 'after']) {
        const form = new FormData();
        if (order === 'before') form.set(name, value);
        form.set('recipe', 'one-form');
        if (order === 'after') form.set(name, value);
        form.append('file', new Blob([small]), 'a.pdf');
        const response = await quire.client.fetch('/api/v1/jobs', { method: 'POST', body: form });
        expect(response.status).toBe(400);
        expect(((await response.json()) as Problem).code).toBe('invalid_request');
      }
    }
    const malformed = await quire.client.fetch('/api/v1/jobs', {
      method: 'POST',
      body: jobForm('Not A Name@x'),
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as Problem).errors).toEqual([
      { field: 'recipe', detail: 'is not a recipe id or name (optionally @version)' },
    ]);
  });

  it('Idempotency-Key: a repeated create is replayed, another body is refused; a job retry survives a replace', async () => {
    const headers = { 'idempotency-key': 'recipe-create-1' };
    const first = await send(
      quire.client,
      'POST',
      '/api/v1/recipes',
      { name: 'idem', steps: rotate(90) },
      headers,
    );
    expect(first.status).toBe(201);
    const again = await send(
      quire.client,
      'POST',
      '/api/v1/recipes',
      { name: 'idem', steps: rotate(90) },
      headers,
    );
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    const reused = await send(
      quire.client,
      'POST',
      '/api/v1/recipes',
      { name: 'idem-2', steps: rotate(90) },
      headers,
    );
    expect(reused.status).toBe(422);

    const jobHeaders = { 'idempotency-key': 'recipe-job-1' };
    const job = await quire.client.fetch('/api/v1/jobs', {
      method: 'POST',
      body: jobForm('idem'),
      headers: jobHeaders,
    });
    expect(job.status).toBe(201);
    await send(quire.client, 'PUT', '/api/v1/recipes/idem', { steps: rotate(180) });
    const retry = await quire.client.fetch('/api/v1/jobs', {
      method: 'POST',
      body: jobForm('idem'),
      headers: jobHeaders,
    });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retry.json()) as JobBody).id).toBe(((await job.json()) as JobBody).id);
    const put = { 'idempotency-key': 'recipe-put-1' };
    const v3 = await send(quire.client, 'PUT', '/api/v1/recipes/idem', { steps: rotate(270) }, put);
    const v3again = await send(quire.client, 'PUT', '/api/v1/recipes/idem', { steps: rotate(270) }, put);
    expect(((await v3again.json()) as RecipeBody).version).toBe(((await v3.json()) as RecipeBody).version);
    expect(((await (await quire.client.fetch('/api/v1/recipes/idem')).json()) as RecipeBody).version).toBe(3);
    // QUIRE_RECIPE_MAX_VERSIONS=3: a fourth version is refused, the third stays the newest.
    const past = await send(quire.client, 'PUT', '/api/v1/recipes/idem', { steps: rotate(90) });
    expect(past.status).toBe(409);
    expect(await past.json()).toMatchObject({ code: 'recipe_limit_exceeded', limit: 'versions', quota: 3 });
  });
});
