// Every screen of the web app in the states a person meets it in, for axe, the 375 px check and the
// README's screenshots: each is an address in the app plus what to do there before looking. The jobs
// and the recipe they show are made through the API first (madeForScreens), so no screen waits on a UI
// flow. A queued job's screen (progress, Cancel) is looked at on a server without workers (app.test.ts).
// Two screens in a row never share an address: going to the same one again would not reset it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { corpusFile } from '../support/corpus.js';
import { chooseFiles, sparsePdf } from './flows.js';

export interface Screen {
  name: string;
  hash: string;
  /** Brings the screen into the state to check; the page is signed in and at `hash`. */
  prepare?: (p: Page) => Promise<void>;
  /** Written as docs/screenshots/<name>-<scheme>.png (light and dark, 1100 px wide). */
  screenshot?: boolean;
}

export interface Made {
  /** A job whose result is a PDF (preview), one with a ZIP (listing), one that failed, one with JSON. */
  pdfJob: string;
  zipJob: string;
  failedJob: string;
  infoJob: string;
  /** A file one byte over the plan's limit, and the zeros the failed job ran on (both sparse). */
  tooBig: string;
  broken: string;
}

export async function createJob(
  app: string,
  key: string,
  fields: Record<string, string>,
  file: string,
  name?: string,
) {
  const form = new FormData();
  for (const [field, value] of Object.entries(fields)) form.append(field, value);
  form.append('file', new Blob([readFileSync(file)]), name ?? path.basename(file));
  const response = await fetch(`${app}api/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  expect(response.ok).toBe(true);
  return ((await response.json()) as { id: string }).id;
}

export async function madeForScreens(app: string, key: string, fileLimit: number): Promise<Made> {
  const simple = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
  const fourPages = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
  const recipe = await fetch(`${app}api/v1/recipes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'scan-cleanup',
      steps: [{ tool: 'rotate', options: { angle: 90, pages: '1' } }, { tool: 'compress' }],
    }),
  });
  expect(recipe.status).toBe(201);
  const broken = await sparsePdf('broken.pdf', 4096);
  return {
    pdfJob: await createJob(app, key, { tool: 'rotate', options: '{"angle":90}' }, simple),
    zipJob: await createJob(app, key, { tool: 'split' }, fourPages),
    failedJob: await createJob(app, key, { tool: 'compress' }, broken, 'broken.pdf'),
    infoJob: await createJob(app, key, { tool: 'info' }, simple),
    tooBig: await sparsePdf('too-big.pdf', fileLimit + 1),
    broken,
  };
}

const ended = (p: Page, status: string) =>
  p.locator('.progress-box .badge').filter({ hasText: status }).waitFor({ timeout: 60_000 });

export function screens(made: Made): Screen[] {
  return [
    { name: 'tools', hash: '', screenshot: true },
    {
      name: 'tool',
      hash: '#/tools/compress',
      screenshot: true,
      prepare: (p) => chooseFiles(p, [corpusFile('ocrmypdf__c02-22.pdf')]),
    },
    {
      name: 'tool-field-error',
      hash: '#/tools/rotate',
      prepare: async (p) => {
        await p.getByLabel('Pages', { exact: true }).fill('1-x');
        await p.getByRole('button', { name: /^Run / }).click();
        await p.locator('#run-error').waitFor();
      },
    },
    {
      name: 'tool-file-refused',
      hash: '#/tools/merge',
      prepare: async (p) => {
        await chooseFiles(p, [made.tooBig]);
        await p.getByText('Nothing was uploaded').waitFor();
      },
    },
    {
      name: 'job',
      hash: `#/jobs/${made.pdfJob}`,
      screenshot: true,
      prepare: async (p) => {
        await ended(p, 'succeeded');
        await p.getByRole('button', { name: 'Preview' }).click();
        await p.locator('.pdf-preview canvas').first().waitFor();
      },
    },
    {
      name: 'job-zip',
      hash: `#/jobs/${made.zipJob}`,
      prepare: (p) => p.getByRole('list', { name: 'Files in the ZIP' }).waitFor(),
    },
    { name: 'job-failed', hash: `#/jobs/${made.failedJob}`, prepare: (p) => ended(p, 'failed') },
    { name: 'job-json', hash: `#/jobs/${made.infoJob}`, prepare: (p) => ended(p, 'succeeded') },
    {
      name: 'organizer-zoom',
      hash: '#/organize',
      prepare: async (p) => {
        await p
          .getByLabel('PDF to organize')
          .setInputFiles(corpusFile('pypdf-samples__pdflatex-4-pages.pdf'));
        await p.getByRole('button', { name: 'Zoom page 2' }).click();
        await p.getByRole('button', { name: 'Close zoom' }).waitFor();
      },
    },
    {
      name: 'jobs',
      hash: '#/jobs',
      screenshot: true,
      prepare: async (p) => {
        await p.getByLabel('Status', { exact: true }).selectOption('succeeded');
        await p.getByLabel('Tool', { exact: true }).selectOption('rotate');
        await p.getByRole('link', { name: made.pdfJob }).waitFor();
      },
    },
    {
      name: 'recipes',
      hash: '#/recipes',
      screenshot: true,
      prepare: async (p) => {
        await p.getByRole('button', { name: 'Open scan-cleanup' }).click();
        await p.getByRole('button', { name: 'Rename scan-cleanup' }).click();
        await p.locator('#step1-angle').waitFor();
      },
    },
    {
      name: 'organizer',
      hash: '#/organize',
      screenshot: true,
      prepare: async (p) => {
        await p
          .getByLabel('PDF to organize')
          .setInputFiles(corpusFile('pypdf-samples__pdflatex-4-pages.pdf'));
        await p.getByRole('img', { name: 'Page 4' }).waitFor();
        await p.getByLabel('Select positions').fill('2-3');
        await p.getByRole('button', { name: 'Select', exact: true }).click();
        await p.getByRole('button', { name: 'Rotate page 1' }).click();
        await p.getByText('2 of 4 selected').waitFor();
      },
    },
  ];
}

/** The screenshots the README shows, named as `screens` writes them. */
export function screenshotNames(made: Made): string[] {
  return screens(made)
    .filter((s) => s.screenshot)
    .flatMap((s) => [`${s.name}-light.png`, `${s.name}-dark.png`]);
}
