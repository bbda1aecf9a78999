// The SDK when the network misbehaves, through a proxy that answers 429, drops a connection after
// the server answered, or cuts a download mid-way: retries make exactly one job, downloads resume.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Quire } from '../../../clients/typescript/src/index.js';
import { corpusFile } from '../../support/corpus.js';
import { fakeEngine } from '../../support/fake-engine/index.js';
import { fakeTool } from '../../support/fake-engine/tool.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { bigPdf, scratchDir } from './support.js';

type Fault = (
  request: http.IncomingMessage,
  response: http.ServerResponse,
) => 'forward' | 'answered' | 'drop-after' | { cutAfter: number };

interface Proxy {
  url: string;
  /** Decides each request's fate; default forwards. */
  fault: Fault;
  seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

/** A loopback HTTP proxy in front of the server, whose `fault` decides what each request meets. */
async function startProxy(target: string): Promise<Proxy> {
  const upstream = new URL(target);
  const proxy: Proxy = { url: '', fault: () => 'forward', seen: [], close: async () => {} };
  const server = http.createServer((request, response) => {
    proxy.seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
    const fate = proxy.fault(request, response);
    if (fate === 'answered') return;
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        if (fate === 'drop-after') {
          // The server did the work and answered; the client never hears it.
          answer.resume();
          answer.on('end', () => request.socket.destroy());
          return;
        }
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        if (typeof fate === 'object') {
          let sent = 0;
          answer.on('data', (chunk: Buffer) => {
            if (sent >= fate.cutAfter) return;
            const part = chunk.subarray(0, fate.cutAfter - sent);
            sent += part.length;
            response.write(part);
            if (sent >= fate.cutAfter) request.socket.destroy();
          });
          return;
        }
        answer.pipe(response);
      },
    );
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}

let server: TestServer;
let proxy: Proxy;
let quire: Quire;
let accountId: string;
let dir: string;
const PDF = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');

beforeAll(async () => {
  server = await startTestServer({}, { extras: { engines: [fakeEngine], tools: [fakeTool] } });
  proxy = await startProxy(server.url);
  const account = await server.newAccount();
  accountId = account.accountId;
  dir = await scratchDir('faults');
  quire = new Quire({
    url: proxy.url,
    apiKey: account.key,
    uploadStore: path.join(dir, 'tus.json'),
    retry: { baseDelayMs: 50 },
  });
});
afterAll(async () => {
  await proxy?.close();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function jobCount(): Promise<number> {
  return (await quire.jobs.list({ limit: 100 })).data.length;
}

describe('the SDK under network faults', () => {
  it('retries a create answered 429 after Retry-After, with the same Idempotency-Key, making one job', async () => {
    const before = await jobCount();
    let creates = 0;
    proxy.seen = [];
    proxy.fault = (request, response) => {
      if (request.method !== 'POST' || request.url !== '/api/v1/jobs' || creates++ > 0) return 'forward';
      request.resume();
      request.on('end', () => {
        response.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'application/problem+json' });
        response.end(
          JSON.stringify({
            type: 'about:blank',
            title: 'Too many requests',
            status: 429,
            detail: 'slow down',
            code: 'rate_limited',
            request_id: 'req_proxy',
          }),
        );
      });
      return 'answered';
    };
    const started = Date.now();
    const job = await quire.jobs.create({ tool: 'rotate', options: { angle: 90 }, inputs: [PDF] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const posts = proxy.seen.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]?.headers['idempotency-key']).toBeTruthy();
    expect(posts[1]?.headers['idempotency-key']).toBe(posts[0]?.headers['idempotency-key']);
    expect(job.status).toBe('queued');
    expect(await jobCount()).toBe(before + 1);
  });

  it('retries a create whose answer was lost, and the server replays it: exactly one job', async () => {
    const before = await jobCount();
    let creates = 0;
    proxy.fault = (request) =>
      request.method === 'POST' && request.url === '/api/v1/jobs' && creates++ === 0
        ? 'drop-after'
        : 'forward';
    const job = await quire.jobs.create({
      tool: 'rotate',
      options: { angle: 90 },
      inputs: [PDF],
      metadata: { case: 'dropped' },
    });
    expect(creates).toBe(2);
    const jobs = (await quire.jobs.list({ limit: 100 })).data;
    expect(jobs.length).toBe(before + 1);
    expect(jobs.filter((j) => j.metadata.case === 'dropped').map((j) => j.id)).toEqual([job.id]);
    expect(await server.runtime.db.jobs.get(accountId, job.id)).toBeTruthy();
  });

  it('resumes a download cut mid-way with Range, and the bytes match', async () => {
    proxy.fault = () => 'forward';
    const input = await bigPdf(path.join(dir, 'eight.pdf'), 8 * 1024 * 1024);
    const { job } = await quire.run('fake', [input], { behaviour: 'copy' });
    let cuts = 0;
    proxy.seen = [];
    proxy.fault = (request) =>
      request.url?.startsWith('/api/v1/files/') && cuts++ === 0 ? { cutAfter: 3 * 1024 * 1024 } : 'forward';
    const to = path.join(dir, 'eight-out.pdf');
    const result = await quire.jobs.download(job.id, { to });
    expect(cuts).toBe(2);
    const ranges = proxy.seen.filter((r) => r.url.startsWith('/api/v1/files/')).map((r) => r.headers.range);
    // The second request asks for the rest from what arrived (the proxy's last writes may be lost
    // with the socket, so at most the 3 MiB it let through).
    expect(ranges[0]).toBeUndefined();
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(String(ranges[1]))?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(3 * 1024 * 1024);
    expect(result.bytes).toBe((await stat(input)).size);
    expect(await sha256(to)).toBe(await sha256(input));
  }, 120_000);

  it('falls back to long-polling when the event stream is refused by a proxy', async () => {
    proxy.seen = [];
    proxy.fault = (request, response) => {
      if (!request.url?.endsWith('/events')) return 'forward';
      response.writeHead(502, { 'Content-Type': 'text/plain' });
      response.end('bad gateway');
      return 'answered';
    };
    const job = await quire.jobs.create({ tool: 'rotate', options: { angle: 90 }, inputs: [PDF] });
    const done = await quire.jobs.wait(job.id);
    expect(done.status).toBe('succeeded');
    expect(proxy.seen.some((r) => r.url.endsWith('/events'))).toBe(true);
    expect(proxy.seen.some((r) => r.url.includes(`/api/v1/jobs/${job.id}?wait=60`))).toBe(true);
    proxy.fault = () => 'forward';
  });
  it('reads the job plainly, without retrying, when the key holds every stream it may (429 too_many_streams)', async () => {
    proxy.seen = [];
    proxy.fault = (request, response) => {
      if (!request.url?.endsWith('/events') && !request.url?.includes('?wait=')) return 'forward';
      response.writeHead(429, { 'Content-Type': 'application/problem+json', 'Retry-After': '5' });
      response.end(
        JSON.stringify({
          type: 'about:blank',
          status: 429,
          code: 'too_many_streams',
          title: 'Too many streams',
          detail: 'x',
        }),
      );
      return 'answered';
    };
    const job = await quire.jobs.create({ tool: 'rotate', options: { angle: 90 }, inputs: [PDF] });
    const done = await quire.jobs.wait(job.id);
    expect(done.status).toBe('succeeded');
    // One attempt each: the refusal is not retried after its Retry-After.
    const reads = proxy.seen.filter((r) => r.url.includes(`/api/v1/jobs/${job.id}`));
    expect(reads.filter((r) => r.url.endsWith('/events'))).toHaveLength(1);
    expect(reads.filter((r) => r.url.includes('?wait='))).toHaveLength(0);
    expect(reads.some((r) => r.url.endsWith(`/api/v1/jobs/${job.id}`))).toBe(true);
    proxy.fault = () => 'forward';
  });
});
