// The recipe builder's flows against the server's recipes resource (docs/api.md §13): build, save,
// reload and run a saved recipe on two files as a batch; and rename, export, import and delete one,
// each checked through the API, never in browser storage.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { apiGet, chooseFiles, signInWithLink } from './flows.js';

interface Recipe {
  id: string;
  name: string;
  version: number;
  steps: Array<{ tool: string; options?: Record<string, unknown> }>;
}
interface Job {
  recipe?: { id: string; name: string; version: number };
  status: string;
}

async function openRecipes(p: Page, app: string): Promise<void> {
  await p.goto(`${app}#/recipes`);
  await p.getByRole('heading', { name: 'Saved recipes' }).waitFor();
}

async function addSteps(p: Page, titles: string[]): Promise<void> {
  for (const title of titles) {
    await p.getByLabel('Tool for a new step').selectOption({ label: title });
    await p.getByRole('button', { name: 'Add step' }).click();
  }
}

/** The app keeps no recipe and no document in the page's storage. */
async function expectNothingStored(p: Page): Promise<void> {
  const stored = String(await p.evaluate('JSON.stringify([{...localStorage}, {...sessionStorage}])'));
  expect(stored).not.toMatch(/recipe|%PDF|rotate|linearize/);
}

/** Item 1's flow: a three-step recipe saved on the server, reloaded, run on two files as a batch. */
export async function recipeBatchFlow(p: Page, app: string, key: string, inputs: [string, string]) {
  await signInWithLink(p, app, key);
  await openRecipes(p, app);
  await p.getByLabel('Recipe name').fill('turn-shrink-web');
  await addSteps(p, ['Rotate pages', 'Compress a PDF', 'Optimize for fast web view']);
  await p.locator('#step1-angle').selectOption('90');
  await p.locator('#step2-level').selectOption('low');
  await p.getByRole('button', { name: 'Save recipe' }).click();
  await p.getByText('Saved “turn-shrink-web” (version 1) on the server.').waitFor();
  const saved = await apiGet<Recipe>(app, key, 'recipes/turn-shrink-web');
  expect(saved.steps).toEqual([
    { tool: 'rotate', options: { angle: 90 } },
    { tool: 'compress', options: { level: 'low' } },
    { tool: 'linearize', options: {} },
  ]);
  await p.reload();
  await p.getByRole('button', { name: 'Open turn-shrink-web' }).click();
  expect(await p.locator('#step1-angle').inputValue()).toBe('90');
  expect(await p.locator('.steps > li h3').allTextContents()).toEqual([
    'Step 1: rotate',
    'Step 2: compress',
    'Step 3: linearize',
  ]);
  await chooseFiles(p, inputs);
  await p.getByRole('button', { name: 'Run the recipe' }).click();
  const link = p.getByRole('link', { name: 'Download the ZIP' });
  await link.waitFor({ timeout: 90_000 });
  const [download] = await Promise.all([p.waitForEvent('download'), link.click()]);
  const listing = execFileSync('unzip', ['-Z1', (await download.path()) ?? ''], { encoding: 'utf8' });
  expect(listing.trim().split('\n')).toHaveLength(2);
  // The batch ran the saved version by reference: each of its jobs records it.
  const jobs = await apiGet<{ data: Job[] }>(app, key, 'jobs?limit=2');
  expect(jobs.data.map((job) => [job.status, job.recipe])).toEqual([
    ['succeeded', { id: saved.id, name: 'turn-shrink-web', version: 1 }],
    ['succeeded', { id: saved.id, name: 'turn-shrink-web', version: 1 }],
  ]);
  await expectNothingStored(p);
}

/** Rename, export, import and delete, with the name rule and a taken name shown next to the field. */
export async function recipeManageFlow(p: Page, app: string, key: string): Promise<void> {
  await signInWithLink(p, app, key);
  await openRecipes(p, app);
  const name = p.getByLabel('Recipe name');
  await name.fill('Two Steps');
  await addSteps(p, ['Rotate pages', 'Compress a PDF']);
  await p.getByRole('button', { name: 'Save recipe' }).click();
  // Both mistakes at once, each next to its field: the name's form and rotate's required angle.
  await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
  expect(await p.locator('#recipe-name-error').textContent()).toMatch(/lower-case letters/);
  expect(await p.locator('#step1-angle').getAttribute('aria-invalid')).toBe('true');
  await p.locator('#step1-angle').selectOption('180');
  await name.fill('two-steps');
  await p.getByRole('button', { name: 'Save recipe' }).click();
  await p.getByText('Saved “two-steps” (version 1) on the server.').waitFor();
  // Saving again under the open recipe's name is its next version.
  await p.locator('#step2-level').selectOption('high');
  await p.getByRole('button', { name: 'Save recipe' }).click();
  await p.getByText('Saved “two-steps” (version 2) on the server.').waitFor();

  await p.getByRole('button', { name: 'Rename two-steps' }).click();
  await p.getByLabel('New name for two-steps').fill('turn-and-shrink');
  await p.getByRole('button', { name: 'Save the new name' }).click();
  await p.getByRole('button', { name: 'Open turn-and-shrink' }).waitFor();
  const renamed = await apiGet<{ data: Recipe[] }>(app, key, 'recipes?limit=100');
  const names = renamed.data.map((r) => r.name);
  expect(names).toContain('turn-and-shrink');
  expect(names).not.toContain('two-steps');

  const [download] = await Promise.all([
    p.waitForEvent('download'),
    p.getByRole('button', { name: 'Export turn-and-shrink' }).click(),
  ]);
  const exported = (await download.path()) ?? '';
  expect(JSON.parse(readFileSync(exported, 'utf8'))).toEqual({
    name: 'turn-and-shrink',
    steps: [
      { tool: 'rotate', options: { angle: 180 } },
      { tool: 'compress', options: { level: 'high' } },
    ],
  });
  // Importing the file while the name is taken puts the refusal on the name field; after a delete the
  // same file imports as a new recipe.
  await p.getByLabel('Import a recipe (JSON)').setInputFiles(exported);
  await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
  await p.getByRole('button', { name: 'Delete turn-and-shrink' }).click();
  await p.getByText('Deleted “turn-and-shrink”.').waitFor();
  const status = await fetch(`${app}api/v1/recipes/turn-and-shrink`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(status.status).toBe(404);
  await p.getByLabel('Import a recipe (JSON)').setInputFiles(exported);
  await p.getByText('Imported “turn-and-shrink”.').waitFor();
  const imported = await apiGet<Recipe>(app, key, 'recipes/turn-and-shrink');
  expect([imported.version, imported.steps[1]?.options]).toEqual([1, { level: 'high' }]);
  await expectNothingStored(p);
}
