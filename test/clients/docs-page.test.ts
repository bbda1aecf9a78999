// /docs as a person meets it: the Scalar reference page rendered in real Chromium, reached by a
// host name other than localhost over plain http (not a secure context), loading nothing from
// outside the server, listing every operation, and its "try it" creating a job from the example: the
// `tool` and `file` rows start ticked and the curl sample has a file part (issue 26, finding 7).
// The screenshots land in .tmp/clients/docs/; docs/images/api-reference.png is a copy of one.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from '../../src/engines/chromium/browser-instance.js';
import { corpusFile } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { clientsDir, samplePdf } from './consumer.js';

/** Resolved to loopback by Chromium itself, so the page runs under a name that is not localhost. */
const HOST = 'quire.test';
const screenshotDir = path.join(clientsDir, 'docs');

interface Operation {
  method: string;
  path: string;
  summary: string;
}

interface Example {
  summary: string;
  value: { tool: string; options: Record<string, unknown>; metadata: Record<string, string> };
}

interface Document {
  info: { title: string };
  paths: Record<
    string,
    Record<
      string,
      {
        summary: string;
        requestBody?: { content: Record<string, { examples?: Record<string, Example> }> };
      }
    >
  >;
}

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let origin: string;
let title: string;
let operations: Operation[];
let firstExample: Example;
let compressExample: Example;

beforeAll(async () => {
  server = await startTestServer();
  const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as Document;
  title = document.info.title;
  operations = Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path: route, summary: op.summary })),
  );
  const examples =
    document.paths['/api/v1/jobs']?.post?.requestBody?.content['multipart/form-data']?.examples ?? {};
  expect(examples.compress, 'the upload documents an example for compress').toBeDefined();
  firstExample = Object.values(examples)[0]!;
  compressExample = examples.compress!;
  origin = `http://${HOST}:${new URL(server.url).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
    ],
  });
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await mkdir(screenshotDir, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Visit {
  page: Page;
  /** Every URL the page requested, and every request that failed or got a 4xx/5xx answer. */
  requested: string[];
  failures: string[];
  scriptErrors: string[];
}

async function openReference(): Promise<Visit> {
  const page = await context.newPage();
  const visit: Visit = { page, requested: [], failures: [], scriptErrors: [] };
  page.on('request', (request) => visit.requested.push(request.url()));
  page.on('requestfailed', (request) =>
    visit.failures.push(`${request.url()}: ${request.failure()?.errorText}`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400) visit.failures.push(`${response.url()}: ${response.status()}`);
  });
  page.on('pageerror', (error) => visit.scriptErrors.push(error.message));
  await page.goto(`${origin}/docs`);
  await page.getByRole('heading', { name: title, exact: true }).waitFor({ timeout: 30_000 });
  return visit;
}

/** The page came whole from the server: nothing from elsewhere, nothing refused, no script error. */
async function expectSelfContained(visit: Visit): Promise<void> {
  await visit.page.close();
  expect(visit.requested.length).toBeGreaterThan(0);
  expect(visit.requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
  expect(visit.failures).toEqual([]);
  expect(visit.scriptErrors).toEqual([]);
}

describe('the API reference at /docs', () => {
  it('lists every operation of the document, on a plain-http host that is not localhost', async () => {
    const visit = await openReference();
    const { page } = visit;
    expect(await page.evaluate('window.isSecureContext')).toBe(false);
    // Groups other than the first start closed; a reader opens them one by one.
    for (let open = page.getByRole('button', { name: /Open Group/ }); (await open.count()) > 0; ) {
      await open.first().click();
    }
    const entries = new Set(
      (await page.getByRole('link').allInnerTexts()).map((text) => text.split('\n')[0]!.trim()),
    );
    const missing = operations.filter((op) => !entries.has(op.summary));
    expect(missing).toEqual([]);
    await expectSelfContained(visit);
  });

  it('creates a job through "try it" with the compress example, the key and a PDF', async () => {
    const { accountId, key } = await server.newAccount();
    const visit = await openReference();
    const { page } = visit;
    const createJob = operations.find((op) => op.method === 'post' && op.path === '/api/v1/jobs')!;
    await page.getByRole('link', { name: createJob.summary }).first().click();

    // The example picker sits under the request sample and starts on the first example.
    await page.getByRole('button', { name: firstExample.summary, exact: true }).first().click();
    await page.getByRole('option', { name: compressExample.summary, exact: true }).click();
    await page.screenshot({ path: path.join(screenshotDir, 'api-reference.png') });
    // The generated curl sample carries the example's parts and a file part.
    const curl = async () =>
      (await page.locator('pre, code').allInnerTexts()).find(
        (text) => text.startsWith('curl') && text.includes('/api/v1/jobs'),
      ) ?? '';
    await expect.poll(curl).toContain(`--form 'tool=${compressExample.value.tool}'`);
    expect(await curl()).toMatch(/--form 'file=@document\.pdf/);
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click();

    const client = page.getByRole('dialog');
    await client.getByText('Authentication', { exact: true }).click();
    await client.getByPlaceholder('Token').fill(key);
    // The parts a first job needs start ticked: Send as the form opens reaches the file check.
    for (const part of ['tool', 'file']) {
      expect(
        await client.getByRole('checkbox', { name: `Include ${part} in request` }).isChecked(),
        part,
      ).toBe(true);
    }
    const send = () => client.getByRole('button', { name: /^Send/ }).first().click();
    await send();
    await client.getByText('400 Bad Request').waitFor({ timeout: 30_000 });
    expect(await client.innerText()).not.toContain('part is required');
    expect(await client.innerText()).toContain('unsupported_file');
    // That refusal is the one answer of the visit expected to be 4xx.
    const refusal = `${origin}/api/v1/jobs: 400`;
    await expect.poll(() => visit.failures).toContain(refusal);
    visit.failures.splice(visit.failures.indexOf(refusal), 1);

    const rows = client.getByRole('row');
    const fileRow = rows.filter({ has: page.getByText('file', { exact: true }) });
    const chooser = page.waitForEvent('filechooser');
    await fileRow.getByRole('button', { name: /Select File/ }).click();
    await (await chooser).setFiles(corpusFile(samplePdf));
    // The example's options and metadata are filled in but sent only once ticked.
    for (const part of ['options', 'metadata']) {
      await client.getByRole('checkbox', { name: `Include ${part} in request` }).check();
    }
    await send();
    await client.getByText('201 Created').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(screenshotDir, 'try-it.png') });

    const jobs = await server.runtime.db.jobs.list(accountId, { limit: 10 });
    expect(jobs.jobs).toHaveLength(1);
    expect(jobs.jobs[0]).toMatchObject({
      tool: 'compress',
      options: compressExample.value.options,
      metadata: compressExample.value.metadata,
      inputs: [{ name: samplePdf }],
    });
    await expectSelfContained(visit);
  });
});
