// Event streams and long-polls are capped per key and per account (docs/api.md §5): 10,000 attempts
// to open `GET /jobs/{id}/events` from one account (another process, over keep-alive connections) get
// 429 `too_many_streams` past the caps while `/healthz` stays quick, and the streams of a key revoked
// by another process (the CLI) end within the key cache's lifetime, its long-polls with a 401.
import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/issue-key.js';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile, repoRoot } from '../support/corpus.js';
import { useTestServer } from '../support/use-test-server.js';

const ATTEMPTS = 10_000;
const IN_FLIGHT = 4;
const PER_KEY = 15;
const PER_ACCOUNT = 20;
/** The default: a revoked key's streams must end within it though this process still trusts the key. */
const AUTH_CACHE_MS = 5_000;
/** The check of open streams' keys runs every second (src/http/stream-slots.ts). */
const KEY_CHECK_MS = 1_000;

let keys: [string, string];
let jobId: string;
const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT + PER_ACCOUNT + 4 });

const quire = useTestServer(
  {
    QUIRE_STREAMS_MAX_PER_KEY: String(PER_KEY),
    QUIRE_STREAMS_MAX_PER_ACCOUNT: String(PER_ACCOUNT),
    QUIRE_AUTH_CACHE_MS: String(AUTH_CACHE_MS),
    // The request rate limit would answer 429 `rate_limited` first: this test is about the stream caps.
    QUIRE_PLAN_BUSINESS_REQUESTS_PER_WINDOW: '1000000',
  },
  { workers: false }, // the job stays queued, so its streams stay open
);
beforeAll(async () => {
  keys = [quire.key, await quire.server.keyFor(quire.accountId, ['jobs:read', 'jobs:write'])];
  const client = new Client(quire.server.url, keys[0]);
  jobId = (
    await client.submit({
      tool: 'rotate',
      options: { angle: 90 },
      files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
    })
  ).id;
}, 60_000);
afterAll(async () => {
  agent.destroy();
});

interface Opened {
  status: number;
  code?: string;
  retryAfter?: string;
  /** An open stream (200): its response, left unread until the test needs it. */
  stream?: http.IncomingMessage;
}

function open(pathname: string, key: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(pathname, quire.server.url), {
      agent,
      headers: { authorization: `Bearer ${key}` },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      if (res.statusCode === 200) return resolve({ status: 200, stream: res });
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code?: string };
        resolve({
          status: res.statusCode ?? 0,
          code: body.code,
          retryAfter: res.headers['retry-after'] as string,
        });
      });
    });
  });
}

/** Resolves with how long after `since` the stream ended. */
function ended(stream: http.IncomingMessage, since: () => number): Promise<number> {
  return new Promise((resolve) => {
    stream.resume();
    stream.once('close', () => resolve(performance.now() - since()));
  });
}

/** `/healthz` answered one after another until `stop`; the latencies in ms. */
async function probeHealth(stop: { done: boolean }): Promise<number[]> {
  const probe = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  while (!stop.done) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      http
        .get(new URL('/healthz', quire.server.url), { agent: probe }, (res) => {
          res.resume();
          res.once('end', resolve);
        })
        .once('error', reject);
    });
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  probe.destroy();
  return latencies;
}

describe('caps on event streams and long-polls', () => {
  it('answers 429 too_many_streams past the caps over 10,000 attempts while /healthz p99 stays under 100 ms', async () => {
    const stop = { done: false };
    const health = probeHealth(stop);
    // The attacker is another process, as it would be: this one serves and probes.
    const flood = await promisify(execFile)(process.execPath, [
      path.join(repoRoot, 'test/support/stream-flood.mjs'),
      new URL(`/api/v1/jobs/${jobId}/events`, quire.server.url).toString(),
      String(ATTEMPTS),
      String(IN_FLIGHT),
      ...keys,
    ]);
    stop.done = true;
    const latencies = (await health).sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1]!;
    const { tally, seconds } = JSON.parse(flood.stdout) as { tally: Record<string, number>; seconds: number };
    console.log(
      `stream caps: ${ATTEMPTS} attempts in ${seconds.toFixed(1)} s: ${JSON.stringify(tally)}; ` +
        `/healthz p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${latencies.length} probes`,
    );
    // Key 0 meets its cap, key 1 the account's; every other attempt is the one stable 429.
    expect(tally).toEqual({
      '0 200': PER_KEY,
      '1 200': PER_ACCOUNT - PER_KEY,
      '0 429 too_many_streams 5': expect.any(Number),
      '1 429 too_many_streams 5': expect.any(Number),
    });
    expect(Object.values(tally).reduce((a, b) => a + b)).toBe(ATTEMPTS);
    expect(p99).toBeLessThan(100);
  }, 120_000);

  it('ends the streams of a key revoked by another process within the key cache’s lifetime (read past it every second)', async () => {
    const opened = await Promise.all(
      Array.from({ length: PER_ACCOUNT }, (_, i) =>
        open(`/api/v1/jobs/${jobId}/events`, keys[i < PER_KEY ? 0 : 1]),
      ),
    );
    expect(opened.map((o) => o.status)).toEqual(Array(PER_ACCOUNT).fill(200));
    // The same refusal as the client sees it, checked against /openapi.json; a long-poll counts too.
    const client = new Client(quire.server.url, keys[1]);
    const refusedPoll = await client.fetch(`/api/v1/jobs/${jobId}?wait=1`);
    expect(refusedPoll.status).toBe(429);
    expect(((await refusedPoll.json()) as { code: string; limit: string }).limit).toBe('concurrent_streams');
    // A creation's `Prefer: wait` over the cap is not honoured: the job exists, the 201 comes at once.
    const asked = performance.now();
    const created = await client.fetch('/api/v1/jobs', {
      method: 'POST',
      headers: { prefer: 'wait=5' },
      body: await client.form({
        tool: 'rotate',
        options: { angle: 90 },
        files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
      }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('preference-applied')).toBeNull();
    expect(performance.now() - asked).toBeLessThan(4_000);

    const streams = opened.map((o) => o.stream!);
    // Close times on the clock; the revocation commits somewhere inside the command's run.
    const closings = streams.slice(0, PER_KEY).map((stream) => ended(stream, () => 0));
    const stillOpen = streams.slice(PER_KEY);
    const revoking = performance.now();
    await promisify(execFile)(
      process.execPath,
      [path.join(repoRoot, 'dist/cli/main.js'), 'keys', 'revoke', keys[0].split('_')[2]!],
      { env: { ...process.env, QUIRE_DATA_DIR: quire.server.dataDir, QUIRE_LOG_LEVEL: 'warn' } },
    );
    const revoked = performance.now();
    const closedAt = await Promise.all(closings);
    console.log(
      `stream caps: the revoked key's ${closings.length} streams closed ${(Math.max(...closedAt) - revoked).toFixed(0)} ms after \`quire keys revoke\` returned (it ran ${(revoked - revoking).toFixed(0)} ms)`,
    );
    expect(Math.min(...closedAt)).toBeGreaterThan(revoking);
    // Read past the cache once a second: well inside the lifetime the cache still trusts the key for.
    expect(Math.max(...closedAt) - revoked).toBeLessThan(AUTH_CACHE_MS);
    expect(stillOpen.every((stream) => !stream.destroyed && !stream.complete)).toBe(true);
    // Their places are free again: key 1 may wait on the job.
    const polled = await client.fetch(`/api/v1/jobs/${jobId}?wait=1`);
    expect(polled.status).toBe(200);
    expect(((await polled.json()) as JobBody).status).toBe('queued');
    for (const stream of stillOpen) stream.destroy();
  }, 60_000);

  it('ends a long-poll with 401 when its key is revoked while it waits', async () => {
    const other = await quire.server.newAccount();
    const key = await quire.server.keyFor(other.accountId, ['jobs:read']);
    const jobId = (
      await new Client(quire.server.url, other.key).submit({
        tool: 'rotate',
        options: { angle: 90 },
        files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
      })
    ).id;
    const client = new Client(quire.server.url, key);
    const polling = client.fetch(`/api/v1/jobs/${jobId}?wait=30`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    // Through this process's API: the key cache drops the key at once.
    await quire.server.runtime.db.accounts.revokeKey(key.split('_')[2]!);
    const answer = await polling;
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { code: string }).code).toBe('invalid_api_key');
    expect(performance.now() - started).toBeLessThan(AUTH_CACHE_MS);
  });

  it('ends an event stream when its key expires', async () => {
    const other = await quire.server.newAccount();
    const expiresAt = Date.now() + 2_000;
    const { key } = await createKey(
      quire.server.runtime,
      other.accountId,
      'expiring',
      ['jobs:read'],
      'live',
      expiresAt,
    );
    const job = await new Client(quire.server.url, other.key).submit({
      tool: 'rotate',
      options: { angle: 90 },
      files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
    });
    const opened = await open(`/api/v1/jobs/${job.id}/events`, key);
    expect(opened.status).toBe(200);
    const closedAt = await ended(opened.stream!, () => 0);
    const afterExpiry = performance.timeOrigin + closedAt - expiresAt;
    expect(afterExpiry).toBeGreaterThanOrEqual(0);
    // Checked once a second; the bound leaves a loaded machine room to schedule the check.
    expect(afterExpiry).toBeLessThan(KEY_CHECK_MS + 2_000);
  });
});
