// The web app under /quire/ behind a small reverse proxy that strips the prefix, with
// QUIRE_PUBLIC_BASE_URL naming the public address: every flow of issue 28 (flow-suite.ts, the code
// app.test.ts runs at /) works as at /, with every request the pages make staying under the sub-path.
// The 300 MB tus upload runs here only: through the proxy is the harder of the two paths.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { launchBrowser, openPage, type TestPage } from './browser.js';
import { describeFlows } from './flow-suite.js';

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
/** Requests a page made outside the sub-path: there must be none. */
const strays: string[] = [];

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
  expect(pages.length).toBeGreaterThan(10);
  expect(strays).toEqual([]);
});

async function page(options: Parameters<typeof openPage>[1] = {}) {
  const opened = await openPage(browser, options);
  pages.push(opened);
  opened.page.on('request', (request) => {
    if (!request.url().startsWith(app)) strays.push(request.url());
  });
  return opened.page;
}

describeFlows(`under ${PREFIX}/ behind a reverse proxy`, () => ({ app, key, page }), { tus: true });
