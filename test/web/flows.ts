// The web app's flows as a person runs them, shared by the direct and the reverse-proxied test files:
// each takes the app's address (`…/` or `…/quire/`) and works through labels and roles only.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** Signs in through the form (optionally "remember me") and waits for the tool picker. */
export async function signInWithForm(page: Page, app: string, key: string, remember = false): Promise<void> {
  await page.goto(app);
  await page.getByLabel('API key').fill(key);
  if (remember) await page.getByLabel('Remember me on this device').check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'What do you want to do?' }).waitFor();
}

/** Opens the one-time sign-in link `quire serve` prints (key in the fragment). */
export async function signInWithLink(page: Page, app: string, key: string): Promise<void> {
  await page.goto(`${app}#key=${key}`);
  await page.getByRole('heading', { name: 'What do you want to do?' }).waitFor();
}

export async function openTool(page: Page, app: string, name: string): Promise<void> {
  await page.goto(`${app}#/tools/${name}`);
  await page.getByRole('button', { name: /^Run / }).waitFor();
}

/** Chooses `files` through the drop zone's file input. */
export async function chooseFiles(page: Page, files: string[]): Promise<void> {
  await page.locator('#file-input').setInputFiles(files);
}

/** Runs the tool form and waits for the job to end; returns its final status text. */
export async function runAndWait(page: Page): Promise<string> {
  await page.getByRole('button', { name: /^Run / }).click();
  const badge = page.locator('.progress-box .badge');
  await expect
    .poll(async () => (await badge.count()) > 0 && (await badge.textContent()), { timeout: 90_000 })
    .toMatch(/succeeded|failed|canceled/);
  return (await badge.textContent()) ?? '';
}

/** Clicks the result's download link and returns the saved file's path. */
export async function downloadResult(page: Page): Promise<string> {
  const link = page.getByRole('link', { name: /^Download / });
  await link.waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  const saved = await download.path();
  if (!saved) throw new Error('the download was not saved');
  return saved;
}

/** Each page's text, in order (pdftotext page by page). */
export function pageTexts(pdf: string): string[] {
  const count = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1]);
  return Array.from({ length: count }, (_, i) =>
    execFileSync('pdftotext', ['-f', String(i + 1), '-l', String(i + 1), pdf, '-'], {
      encoding: 'utf8',
    }).trim(),
  );
}

export async function compressFlow(page: Page, app: string, input: string): Promise<void> {
  await openTool(page, app, 'compress');
  await chooseFiles(page, [input]);
  await page.getByLabel('Level').selectOption('high');
  expect(await runAndWait(page)).toBe('succeeded');
  const saved = await downloadResult(page);
  expect(readFileSync(saved).subarray(0, 5).toString()).toBe('%PDF-');
  expect(statSync(saved).size).toBeLessThan(statSync(input).size);
}

/** Merges three one-page PDFs after moving the last one first; checks the pages' order. */
export async function mergeFlow(page: Page, app: string, files: [string, string, string]): Promise<void> {
  await openTool(page, app, 'merge');
  await chooseFiles(page, files);
  const third = files[2].split('/').pop() ?? '';
  await page.getByRole('button', { name: `Up ${third}` }).click();
  await page.getByRole('button', { name: `Up ${third}` }).click();
  const names = await page.locator('.file-list .name').allTextContents();
  expect(names).toEqual([files[2], files[0], files[1]].map((f) => f.split('/').pop()));
  expect(await runAndWait(page)).toBe('succeeded');
  const merged = pageTexts(await downloadResult(page));
  expect(merged).toEqual([files[2], files[0], files[1]].map((f) => pageTexts(f)[0]));
}
