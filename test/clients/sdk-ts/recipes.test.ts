// The TypeScript SDK's recipes against a real server (docs/api.md §13): save, read, replace, list and
// delete through `quire.recipes`, a job, a `runRecipe` and a batch naming one, and the server's codes
// and pointers arriving as QuireError.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Quire, QuireError } from '../../../clients/typescript/src/index.js';
import { corpusFile } from '../../support/corpus.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { scratchDir } from './support.js';

const PDF = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
let server: TestServer;
let quire: Quire;
let dir: string;

beforeAll(async () => {
  server = await startTestServer();
  dir = await scratchDir('recipes');
  quire = new Quire({
    url: server.url,
    apiKey: (await server.newAccount()).key,
    uploadStore: path.join(dir, 'tus.json'),
  });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function refusal(promise: Promise<unknown>): Promise<QuireError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuireError);
  return error as QuireError;
}

describe('the TypeScript SDK’s recipes', () => {
  it('saves, replaces, reads versions, lists and deletes', async () => {
    const saved = await quire.recipes.create({
      name: 'sdk-turn',
      steps: [{ tool: 'rotate', options: { angle: 90 } }],
    });
    expect(saved).toMatchObject({ name: 'sdk-turn', version: 1 });
    const replaced = await quire.recipes.replace('sdk-turn', [
      { tool: 'rotate', options: { angle: 180 } },
      { tool: 'compress' },
    ]);
    expect(replaced).toMatchObject({ id: saved.id, version: 2 });
    expect(await quire.recipes.get('sdk-turn@1')).toMatchObject({ version: 1, latest_version: 2 });
    const names: string[] = [];
    for await (const recipe of quire.recipes.iterate({ limit: 1 }))
      names.push(`${recipe.name}@${recipe.version}`);
    expect(names).toContain('sdk-turn@2');
    const taken = await refusal(
      quire.recipes.create({ name: 'sdk-turn', steps: [{ tool: 'rotate', options: { angle: 90 } }] }),
    );
    expect(taken.code).toBe('recipe_name_taken');
    const bad = await refusal(
      quire.recipes.create({
        name: 'sdk-bad',
        steps: [
          { tool: 'rotate', options: { angle: 90 } },
          { tool: 'compress', options: { foo: 1 } as never },
        ],
      }),
    );
    expect(bad).toMatchObject({ code: 'invalid_options', status: 400 });
    expect(bad.errors).toContainEqual({ pointer: '/steps/1/options/foo', detail: 'is not a known option' });
    await quire.recipes.delete('sdk-turn');
    expect((await refusal(quire.recipes.get('sdk-turn'))).code).toBe('not_found');
  });

  it('runs a recipe as a job, with runRecipe, and as a batch, each job recording the version', async () => {
    const saved = await quire.recipes.create({
      name: 'sdk-run',
      steps: [{ tool: 'rotate', options: { angle: 90 } }],
    });
    await quire.recipes.replace('sdk-run', [{ tool: 'rotate', options: { angle: 270 } }]);
    const job = await quire.jobs.create({ recipe: 'sdk-run@1', inputs: [PDF] });
    expect(job.recipe).toEqual({ id: saved.id, name: 'sdk-run', version: 1 });
    const { job: ran, download } = await quire.runRecipe('sdk-run', [PDF], { to: path.join(dir, 'ran.pdf') });
    expect(ran).toMatchObject({ status: 'succeeded', recipe: { version: 2 }, options: { angle: 270 } });
    expect(download?.bytes).toBeGreaterThan(0);
    const batch = await quire.batches.create({ recipe: 'sdk-run', inputs: [PDF, PDF] });
    expect(batch.jobs.map((j) => j.recipe?.version)).toEqual([2, 2]);
    const missing = await refusal(quire.jobs.create({ recipe: 'no-such-recipe', inputs: [PDF] }));
    expect(missing).toMatchObject({ code: 'recipe_not_found', status: 404 });
  });
});
