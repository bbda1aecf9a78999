// The web app under /quire/ behind a small reverse proxy that strips the prefix, with
// QUIRE_PUBLIC_BASE_URL naming the public address: sign-in, compress and download, merge after
// reordering and the page-range field error all work as at /.
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile } from '../support/corpus.js';
import { textPdf } from '../support/heavy-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { axeViolations, launchBrowser, openPage, type TestPage } from './browser.js';
import { chooseFiles, compressFlow, mergeFlow, openTool, signInWithForm, signInWithLink } from './flows.js';

const PREFIX = '/quire';

/** Forwards `/quire/…` to the server as `/…` (bodies and event streams piped as they come). */
function startProxy(): Promise<{ server: http.Server; port: number; target: { url: string } }> {
  const target = { url: '' };
  const server = http.createServer((request, response) => {
    const url = request.url ?? '/';
    if (url === PREFIX) {
      response.writeHead(301, { location: `${PREFIX}/` }).end();
      return;
    }
    if (!url.startsWith(`${PREFIX}/`)) {
      response.writeHead(404).end();
      return;
    }
    const upstream = http.request(
      `${target.url}${url.slice(PREFIX.length)}`,
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, port: (server.address() as AddressInfo).port, target }),
    ),
  );
}

let proxy: Awaited<ReturnType<typeof startProxy>>;
let server: TestServer;
let browser: Browser;
let key: string;
let app: string;
const pages: TestPage[] = [];

beforeAll(async () => {
  proxy = await startProxy();
  app = `http://127.0.0.1:${proxy.port}${PREFIX}/`;
  server = await startTestServer({ QUIRE_PUBLIC_BASE_URL: app, QUIRE_LOG_LEVEL: 'warn' });
  proxy.target.url = server.url;
  ({ key } = await server.newAccount());
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  proxy?.server.close();
  for (const opened of pages) expect(opened.cspViolations).toEqual([]);
});

async function newPage() {
  const opened = await openPage(browser);
  pages.push(opened);
  opened.page.on('request', (request) => {
    if (!request.url().startsWith(app)) throw new Error(`a request left the sub-path: ${request.url()}`);
  });
  return opened.page;
}

describe(`the web app under ${PREFIX}/ behind a reverse proxy`, () => {
  it('signs in with the form and with the link, every request staying under the sub-path', async () => {
    const requests: string[] = [];
    const p = await newPage();
    p.on('request', (request) => requests.push(request.url()));
    await signInWithForm(p, app, key);
    const q = await newPage();
    q.on('request', (request) => requests.push(request.url()));
    await signInWithLink(q, app, key);
    expect(requests.length).toBeGreaterThan(3);
    expect(requests.filter((url) => !url.startsWith(app))).toEqual([]);
    expect(await axeViolations(q)).toEqual([]);
  });

  it('compresses and downloads through the proxy', async () => {
    const p = await newPage();
    await signInWithLink(p, app, key);
    await compressFlow(p, app, corpusFile('ocrmypdf__c02-22.pdf'));
  });

  it('merges three reordered files through the proxy', async () => {
    const p = await newPage();
    await signInWithLink(p, app, key);
    await mergeFlow(p, app, [
      textPdf('one.pdf', ['ONE']),
      textPdf('two.pdf', ['TWO']),
      textPdf('three.pdf', ['THREE']),
    ]);
  });

  it('uploads a 300 MB file over tus and, after a reload at half-way, resumes where the server stopped', async () => {
    const big = path.join(await mkdtemp(path.join(os.tmpdir(), 'quire-web-tus-')), 'big.pdf');
    await writeFile(big, '%PDF-1.7\n');
    await truncate(big, 300 * 1000 * 1000);
    const p = await newPage();
    const offsets: number[] = [];
    p.on('request', (request) => {
      const offset = request.headers()['upload-offset'];
      if (request.method() === 'PATCH' && offset !== undefined) offsets.push(Number(offset));
    });
    await signInWithLink(p, app, key);
    await openTool(p, app, 'compress');
    await chooseFiles(p, [big]);
    await p.getByRole('button', { name: /^Run / }).click();
    const bar = p.getByRole('progressbar', { name: 'Upload of big.pdf' });
    await expect
      .poll(async () => Number(await bar.getAttribute('value')), { timeout: 120_000 })
      .toBeGreaterThan(150e6);
    await p.reload();
    const beforeReload = Math.max(...offsets);
    offsets.length = 0;
    await openTool(p, app, 'compress');
    await chooseFiles(p, [big]);
    await p.getByRole('button', { name: /^Run / }).click();
    // The job is created on the finished upload (the zeros are no PDF, so it then fails: not the point).
    await p.locator('.progress-box .badge').waitFor({ timeout: 120_000 });
    expect(offsets[0]).toBeGreaterThanOrEqual(100e6);
    expect(offsets[0]).toBeLessThanOrEqual(beforeReload + 16 * 1024 * 1024);
    await rm(path.dirname(big), { recursive: true, force: true });
  }, 240_000);

  it('shows the page-range field error', async () => {
    const p = await newPage();
    await signInWithLink(p, app, key);
    await openTool(p, app, 'rotate');
    const field = p.getByLabel('Pages', { exact: true });
    await field.fill('0-3');
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
  });
});
