// Stalled and abandoned uploads (issue 14): a body that stops arriving is cut after the idle timeout
// with its partial file deleted, each account has a bounded number of uploads in progress, 1,000
// stalls do not stop the server serving others, and a client hanging up is not an error in the log.
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectProblem, field, filePart, head, parseResponse, type RawResponse } from './http-raw.js';

const pdfPath = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
const pdf = readFileSync(pdfPath);
const B = 'stall-boundary';
const IDLE_MS = 1_500;

/** Open file descriptors of this process: the server runs in it, with every client socket too. */
async function openFds(): Promise<number> {
  return (await readdir('/proc/self/fd')).length;
}

/** The soft RLIMIT_NOFILE of this process; 1,000 stalls hold about 3,000 descriptors here. */
async function fdLimit(): Promise<number> {
  const limits = await readFile('/proc/self/limits', 'utf8');
  return Number(/Max open files\s+(\d+)/.exec(limits)?.[1] ?? 0);
}

/**
 * The files the blob store holds: under its root, and the ones it made ahead beside it for the next
 * uploads (blobs/local-ahead.ts), where an upload's partial file is written before its rename.
 */
async function storedFiles(server: TestServer): Promise<string[]> {
  const roots = [
    path.join(server.dataDir, 'files'),
    ...(await readdir(server.dataDir))
      .filter((name) => name.startsWith('.files-ahead-'))
      .map((name) => path.join(server.dataDir, name)),
  ];
  const entries = (
    await Promise.all(
      roots.map((root) => readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])),
    )
  ).flat();
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

interface Stall {
  socket: net.Socket;
  /** Resolves with whatever the server answered before it closed the connection. */
  closed: Promise<RawResponse | undefined>;
}

/**
 * Starts an upload that announces 10 MB, sends the tool and the first 4 KiB of a PDF (enough for
 * the server to open the blob's temp file), then sends nothing more and keeps the socket open.
 */
function stallUpload(
  baseUrl: string,
  key: string,
  chunked = false,
  extra: [string, string][] = [],
): Promise<Stall> {
  const { port } = new URL(baseUrl);
  const body = Buffer.concat([
    Buffer.from(
      `--${B}\r\n${field('tool')}\r\n\r\ncompress\r\n--${B}\r\n${filePart('file', 'a.pdf')}\r\n\r\n`,
    ),
    pdf.subarray(0, 4096),
  ]);
  const framing: [string, string] = chunked
    ? ['Transfer-Encoding', 'chunked']
    : ['Content-Length', '10000000'];
  const bytes = Buffer.concat([
    Buffer.from(
      head('POST /api/v1/jobs HTTP/1.1', [
        ['Host', 'localhost'],
        ['Authorization', `Bearer ${key}`],
        ['Content-Type', `multipart/form-data; boundary=${B}`],
        framing,
        ...extra,
      ]),
    ),
    chunked ? Buffer.from(`${body.length.toString(16)}\r\n`) : Buffer.alloc(0),
    body,
    chunked ? Buffer.from('\r\n') : Buffer.alloc(0),
  ]);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    const closed = new Promise<RawResponse | undefined>((done) =>
      socket.once('close', () => done(parseResponse(Buffer.concat(chunks)))),
    );
    socket.once('connect', () => {
      socket.write(bytes, (error) => (error ? reject(error) : resolve({ socket, closed })));
    });
    socket.once('error', reject);
  });
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

async function healthzLatencies(baseUrl: string, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const { ms, value } = await timed(() => fetch(`${baseUrl}/healthz`));
    expect(value.status).toBe(200);
    latencies.push(ms);
  }
  return latencies.sort((a, b) => a - b);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the upload idle timeout', () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ QUIRE_UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_MS) }, { workers: false });
    key = (await server.newAccount()).key;
    // One upload first (its job stays queued: no workers), so the files the store makes ahead for
    // the next uploads are there before any count (blobs/local-ahead.ts).
    await new Client(server.url, key).submit({ tool: 'rotate', options: { angle: 90 }, files: [pdfPath] });
    await new Promise((resolve) => setTimeout(resolve, 200));
  });
  afterAll(() => server.close());

  it.each([
    ['Content-Length', false],
    ['chunked', true],
  ])(
    'cuts a %s upload that stops mid-body with 408 request_timeout and deletes its partial file',
    async (_name, chunked) => {
      const before = (await storedFiles(server)).length;
      const started = Date.now();
      const stall = await stallUpload(server.url, key, chunked);
      await until(async () => (await storedFiles(server)).length === before + 1, 5_000);
      const answer = await stall.closed;
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(IDLE_MS - 100);
      expect(waited).toBeLessThan(IDLE_MS + 3_000);
      expectProblem(answer!, 408, 'request_timeout');
      await until(async () => (await storedFiles(server)).length === before, 5_000);
    },
  );

  it('keeps an upload that is slow but steady: bytes arriving within the timeout are never cut', async () => {
    const client = new Client(server.url, key);
    const form = await client.form({ tool: 'rotate', options: { angle: 90 }, files: [pdfPath] });
    const encoded = new Response(form);
    const type = encoded.headers.get('content-type')!;
    const body = Buffer.from(await encoded.arrayBuffer());
    // 2.4 idle timeouts in all, a piece every 0.4 of one.
    const pieces = 6;
    const size = Math.ceil(body.length / pieces);
    const response = await new Promise<RawResponse>((resolve, reject) => {
      const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.once('error', reject);
      socket.once('close', () => resolve(parseResponse(Buffer.concat(chunks))!));
      socket.write(
        head('POST /api/v1/jobs HTTP/1.1', [
          ['Host', 'localhost'],
          ['Authorization', `Bearer ${key}`],
          ['Content-Type', type],
          ['Content-Length', String(body.length)],
          ['Connection', 'close'],
        ]),
      );
      void (async () => {
        for (let i = 0; i < pieces; i++) {
          if (i > 0) await new Promise((r) => setTimeout(r, IDLE_MS * 0.4));
          socket.write(body.subarray(i * size, (i + 1) * size));
        }
      })();
    });
    expect(response.status, response.body).toBe(201);
  });

  it('releases the Idempotency-Key of a cut upload: the retry with the same key creates the job', async () => {
    const stall = await stallUpload(server.url, key, false, [['Idempotency-Key', 'stalled-upload-1']]);
    expectProblem((await stall.closed)!, 408, 'request_timeout');
    const client = new Client(server.url, key);
    const retry = await client.fetch('/api/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'stalled-upload-1' },
      body: await client.form({ tool: 'rotate', options: { angle: 90 }, files: [pdfPath] }),
    });
    expect(retry.status, await retry.clone().text()).toBe(201);
  });

  it('cuts a stalled JSON body too (any route): 408 request_timeout', async () => {
    const answer = await new Promise<RawResponse | undefined>((resolve) => {
      const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', () => undefined);
      socket.once('close', () => resolve(parseResponse(Buffer.concat(chunks))));
      socket.write(
        `${head('POST /api/v1/webhooks HTTP/1.1', [
          ['Host', 'localhost'],
          ['Authorization', `Bearer ${key}`],
          ['Content-Type', 'application/json'],
          ['Content-Length', '1000'],
        ])}{"url":"http://93.184.215.14/h",`,
      );
    });
    expectProblem(answer!, 408, 'request_timeout');
  });

  it('logs a client that hangs up mid-upload at debug, not as an error', async () => {
    const before = (await storedFiles(server)).length;
    const stall = await stallUpload(server.url, key);
    await until(async () => (await storedFiles(server)).length === before + 1, 5_000);
    stall.socket.destroy();
    await until(async () => (await storedFiles(server)).length === before, 5_000);
    await until(async () => server.logs.some((l) => l.includes('client closed the connection')), 5_000);
    const errors = server.logs.filter((line) => JSON.parse(line).level >= 50);
    expect(errors).toEqual([]);
    expect(server.logs.join('\n')).not.toContain('ERR_STREAM_PREMATURE_CLOSE"},"msg":"request failed');
  });
});

describe('the per-account cap on uploads in progress', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(
      { QUIRE_UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_MS), QUIRE_UPLOAD_MAX_CONCURRENT_PER_ACCOUNT: '2' },
      { workers: false },
    );
  });
  afterAll(() => server.close());

  it('answers 429 concurrent_uploads_exceeded past the cap, for that account only, and frees the slots when the stalls are cut', async () => {
    const alice = await server.newAccount();
    const bob = await server.newAccount();
    const stalls = [await stallUpload(server.url, alice.key), await stallUpload(server.url, alice.key)];
    const third = await new Client(server.url, alice.key).createJob({
      tool: 'rotate',
      options: { angle: 90 },
      files: [pdfPath],
    });
    expect(third.status).toBe(429);
    expect(third.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(third.headers.get('retry-after')).toBe('1');
    expect(await third.json()).toMatchObject({
      code: 'concurrent_uploads_exceeded',
      limit: 'concurrent_uploads',
      quota: 2,
    });
    await new Client(server.url, bob.key).submit({
      tool: 'rotate',
      options: { angle: 90 },
      files: [pdfPath],
    });

    await Promise.all(stalls.map((s) => s.closed));
    await new Client(server.url, alice.key).submit({
      tool: 'rotate',
      options: { angle: 90 },
      files: [pdfPath],
    });
  });
});

describe('1,000 stalled uploads', () => {
  let server: TestServer;
  const ACCOUNTS = 10;
  const PER_ACCOUNT = 100;
  beforeAll(async () => {
    server = await startTestServer({
      // Long enough that none is cut while the 1,000 are still being opened on a loaded machine
      // (15 s was not: at load 15 the first stalls were cut before the last had stored a byte).
      QUIRE_UPLOAD_IDLE_TIMEOUT_MS: '30000',
      QUIRE_UPLOAD_MAX_CONCURRENT_PER_ACCOUNT: String(PER_ACCOUNT),
      QUIRE_WORKER_CONCURRENCY: '1',
    });
  });
  afterAll(() => server.close());

  it('leave /healthz and a real job answering at normal speed, and fds and temp files return to baseline after the timeout', async () => {
    expect(
      await fdLimit(),
      'needs `ulimit -n` of at least 4096 (three fds per stall here)',
    ).toBeGreaterThanOrEqual(4096);
    const accounts = await Promise.all(Array.from({ length: ACCOUNTS }, () => server.newAccount()));
    // The job comes from an account with no stalls of its own: the cap is not what keeps it going.
    const client = new Client(server.url, (await server.newAccount()).key);
    await client
      .submit({ tool: 'rotate', options: { angle: 90 }, files: [pdfPath] })
      .then((j) => client.waitFor(j.id));
    const before = await storedFiles(server);
    const baseline = {
      fds: await openFds(),
      files: before.length,
      stored: before.filter((f) => !f.includes(`${path.sep}.files-ahead-`)).length,
    };
    const quiet = await healthzLatencies(server.url, 30);

    const stalls: Stall[] = [];
    for (let batch = 0; batch < PER_ACCOUNT; batch += 20) {
      // 200 connects at a time: the listen backlog is 511.
      const opened = await Promise.all(
        accounts.flatMap((a) => Array.from({ length: 20 }, () => stallUpload(server.url, a.key))),
      );
      stalls.push(...opened);
    }
    expect(stalls).toHaveLength(ACCOUNTS * PER_ACCOUNT);
    await until(async () => (await storedFiles(server)).length >= baseline.files + 900, 25_000);
    const during = { fds: await openFds(), files: (await storedFiles(server)).length };
    const loaded = await healthzLatencies(server.url, 30);
    const job = await timed(async () => {
      const created = await client.submit({ tool: 'rotate', options: { angle: 90 }, files: [pdfPath] });
      return client.waitFor(created.id, 30);
    });
    expect(job.value.status).toBe('succeeded');

    const answers = await Promise.all(stalls.map((s) => s.closed));
    // Back to what was stored before (and the real job's result), and at most the four empty files
    // the store keeps made ahead (and the one they are copied from), whichever of them the stalls
    // took and it made again.
    const settled = async () => {
      const files = await storedFiles(server);
      const ahead = files.filter((f) => f.includes(`${path.sep}.files-ahead-`)).length;
      return files.length - ahead <= baseline.stored + 2 && ahead <= 5;
    };
    await until(settled, 20_000);
    await until(async () => (await openFds()) <= baseline.fds + 20, 20_000);
    const after = { fds: await openFds(), files: (await storedFiles(server)).length };

    const report = {
      fds: { baseline: baseline.fds, during: during.fds, after: after.fds },
      tempAndStoredFiles: { baseline: baseline.files, during: during.files, after: after.files },
      healthzMs: {
        quietP50: percentile(quiet, 0.5),
        quietMax: quiet.at(-1),
        stalledP50: percentile(loaded, 0.5),
        stalledMax: loaded.at(-1),
      },
      jobMs: Math.round(job.ms),
      answered408: answers.filter((a) => a?.status === 408).length,
    };
    process.stdout.write(`1,000 stalls: ${JSON.stringify(report)}\n`);
    expect(during.fds).toBeGreaterThan(baseline.fds + 2_000);
    expect(percentile(loaded, 0.5)).toBeLessThan(Math.max(50, 5 * percentile(quiet, 0.5)));
    // A bound on what a blocked event loop would do (seconds per probe), not a latency target: on a
    // machine with both cores busy even the quiet probes are scheduled late; the p50 ratio above is
    // the comparison, taken in the same minute.
    expect(loaded.at(-1)!).toBeLessThan(5_000);
    expect(job.ms).toBeLessThan(15_000);
    // Every stalled connection was closed by the server (`answers` resolved). Most hear the 408
    // first; under heavy load some are closed by the backstop before their answer is written.
    expect(answers.filter((a) => a !== undefined && a.status !== 408)).toEqual([]);
    expect(answers.filter((a) => a?.status === 408).length).toBeGreaterThan(stalls.length / 2);
  }, 120_000);
});
