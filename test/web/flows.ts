// The web app's flows as a person runs them, shared by the direct and the reverse-proxied test files
// (flow-suite.ts): each takes the app's address (`…/` or `…/quire/`) and works through labels and roles
// only; the test's own API calls go through the same address.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';
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

/** A JSON GET of the API through the app's address, with the key. */
export async function apiGet<T>(app: string, key: string, route: string): Promise<T> {
  const response = await fetch(`${app}api/v1/${route}`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** A sparse file of `size` bytes starting like a PDF: no disk or memory spent on its zeros. */
export async function sparsePdf(name: string, size: number): Promise<string> {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'quire-web-')), name);
  await writeFile(file, '%PDF-1.7\n');
  await truncate(file, size);
  return file;
}

/**
 * Signs in with the form (sessionStorage; "remember me": localStorage) and with the sign-in link,
 * whose key never travels in a request and leaves the address bar and the history at once.
 */
export async function signInFlow(page: () => Promise<Page>, app: string, key: string): Promise<void> {
  const p = await page();
  await signInWithForm(p, app, key);
  expect(
    await p.evaluate('[sessionStorage.getItem("quire.apiKey"), localStorage.getItem("quire.apiKey")]'),
  ).toEqual([key, null]);
  const q = await page();
  await signInWithForm(q, app, key, true);
  expect(await q.evaluate('localStorage.getItem("quire.apiKey")')).toBe(key);
  const r = await page();
  const sent: string[] = [];
  r.on('request', (request) => sent.push(request.url()));
  await signInWithLink(r, app, key);
  expect(r.url()).toBe(app);
  expect(await r.evaluate('sessionStorage.getItem("quire.apiKey")')).toBe(key);
  expect(sent.length).toBeGreaterThan(2);
  expect(sent.filter((url) => url.includes(key))).toEqual([]);
  await r.goBack().catch(() => undefined);
  expect(r.url()).not.toContain(key);
}

/** A file one byte over the plan's limit is refused in the page: no upload request leaves it. */
export async function overLimitFlow(p: Page, app: string, key: string): Promise<void> {
  const { limits } = await apiGet<{ limits: { max_file_bytes: number } }>(app, key, 'tools');
  const big = await sparsePdf('big.pdf', limits.max_file_bytes + 1);
  await signInWithLink(p, app, key);
  await openTool(p, app, 'compress');
  const sent: string[] = [];
  p.on('request', (request) => sent.push(`${request.method()} ${request.url()}`));
  await chooseFiles(p, [big]);
  await expect
    .poll(() => p.getByRole('alert').first().textContent())
    .toMatch(/plan takes files up to .*Nothing was uploaded/);
  expect(await p.locator('.file-list li').count()).toBe(0);
  expect(sent.filter((s) => s.startsWith('POST') || s.startsWith('PATCH'))).toEqual([]);
  await rm(path.dirname(big), { recursive: true, force: true });
}

/** A malformed page range is shown next to its field, before anything is sent. */
export async function pageRangeFlow(p: Page, app: string, key: string): Promise<void> {
  await signInWithLink(p, app, key);
  await openTool(p, app, 'rotate');
  const sent: string[] = [];
  p.on('request', (request) => sent.push(request.method()));
  const field = p.getByLabel('Pages', { exact: true });
  await field.fill('1-x');
  await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
  const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
  const error = p.locator(`#${describedBy.split(' ').find((id) => id.endsWith('-error'))}`);
  expect(await error.textContent()).toMatch(/Pages is not valid/);
  expect(sent.filter((method) => method !== 'GET')).toEqual([]);
}

interface Seen {
  what: string;
  text: string;
}

/**
 * Protects a PDF with a password, then looks for the password everywhere it must not be: every
 * request's URL, headers and body (seen through route interception, under which Chromium hands over
 * multipart bodies too), every JSON answer, the page's storage, cookies and text. It must be found in
 * the job's request, which proves the search sees multipart bodies at all.
 */
export async function protectFlow(p: Page, app: string, key: string, input: string): Promise<void> {
  const password = 'Pw-only-in-the-job-7f3a';
  const requests: Seen[] = [];
  const answers: Seen[] = [];
  const record = async (request: Request) => {
    const body = request.postDataBuffer()?.toString('latin1') ?? '';
    const headers = JSON.stringify(await request.allHeaders());
    requests.push({
      what: `${request.method()} ${new URL(request.url()).pathname}`,
      text: request.url() + headers + body,
    });
  };
  await p.route('**/*', async (route) => {
    await record(route.request());
    await route.continue();
  });
  p.on('response', async (response) => {
    if (!/json/.test(response.headers()['content-type'] ?? '')) return;
    const text = await response.text().catch(() => '');
    answers.push({ what: `${response.request().method()} ${new URL(response.url()).pathname}`, text });
  });
  await signInWithLink(p, app, key);
  await openTool(p, app, 'protect');
  await chooseFiles(p, [input]);
  const field = p.getByLabel('User password');
  expect(await field.getAttribute('type')).toBe('password');
  await field.fill(password);
  expect(await runAndWait(p)).toBe('succeeded');
  // The job got it: the result needs a password to open (qpdf exit code 0 = yes).
  execFileSync('qpdf', ['--requires-password', await downloadResult(p)]);
  const carrying = (seen: Seen[]) => seen.filter((s) => s.text.includes(password)).map((s) => s.what);
  const jobPath = `POST ${new URL(`${app}api/v1/jobs`).pathname}`;
  expect(carrying(requests)).toEqual([jobPath]);
  expect(requests.filter((r) => r.what === jobPath)).toHaveLength(1);
  expect(answers.length).toBeGreaterThan(2);
  expect(carrying(answers)).toEqual([]);
  const stored = await p.evaluate(
    'JSON.stringify([{...localStorage}, {...sessionStorage}, document.cookie])',
  );
  expect(stored).not.toContain(password);
  expect(JSON.stringify(await p.context().cookies())).not.toContain(password);
  // Nothing kept anywhere else a page can keep data.
  expect(
    await p.evaluate(
      '(async () => [(await indexedDB.databases()).length, typeof caches === "undefined" ? 0 : (await caches.keys()).length])()',
    ),
  ).toEqual([0, 0]);
  expect(await p.content()).not.toContain(password);
  await p.unrouteAll({ behavior: 'ignoreErrors' });
}
