// Issue 14, attack 2: structure work on a PDF of 1.5 M tiny objects must not grow the embedded
// server (API and workers in this process). Four jobs at once — flatten, info, merge, metadata —
// while /healthz is probed; the bounds are generous (the bench targets 300 MB and 100 ms).
// /healthz's bound is what a stalled event loop would break (the attack stalled it 14.7 s), not a
// latency target: on a machine with both cores busy the server is scheduled late by itself (a probe
// took 1.03 s at load 15 with the loop free), so the target lives in `npm run bench`.
// The server shares this process with the test, so the 110 MB uploads are sent by curl: a client
// in this process would buffer them here and be measured as the server.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type JobBody } from '../support/client.js';
import { healthy, manyObjectsPdf, writeVariant } from '../support/hostile-pdf.js';
import { startTestServer, type TestServer } from '../support/server.js';

const RSS_BOUND_BYTES = 400 * 1024 ** 2;
const HEALTHZ_BOUND_MS = 3_000;
const JOB_SECONDS = 480;

let server: TestServer;
let client: Client;
let key: string;
let dir: string;
let file: string;
let companion: string;

beforeAll(async () => {
  file = await manyObjectsPdf();
  dir = await mkdtemp(path.join(os.tmpdir(), 'quire-structure-'));
  companion = await writeVariant(dir, 'companion.pdf', healthy());
  server = await startTestServer({ QUIRE_WORKER_CONCURRENCY: '4', QUIRE_ENGINE_TIMEOUT_MS: '420000' });
  key = (await server.newAccount()).key;
  client = new Client(server.url, key);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function submit(
  tool: string,
  files: string[],
  options: Record<string, unknown> = {},
): Promise<JobBody> {
  const form = [['tool', tool], ['options', JSON.stringify(options)], ...files.map((f) => ['file', `@${f}`])];
  const { stdout } = await promisify(execFile)('curl', [
    '--silent',
    '--fail-with-body',
    '--header',
    `authorization: Bearer ${key}`,
    ...form.flatMap(([name, value]) => ['--form', `${name}=${value}`]),
    `${server.url}/api/v1/jobs`,
  ]);
  return JSON.parse(stdout) as JobBody;
}

describe('structure work on a file of 1.5 million objects', () => {
  it(
    'keeps the server under 400 MB RSS and /healthz under 3 s while flatten, info, merge and metadata run at once',
    async () => {
      let peakRss = process.memoryUsage().rss;
      const rssTimer = setInterval(() => {
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
      }, 50);
      const latencies: number[] = [];
      let probing = true;
      const probe = (async () => {
        while (probing) {
          const started = performance.now();
          const response = await fetch(`${server.url}/healthz`);
          await response.arrayBuffer();
          latencies.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      try {
        const jobs = await Promise.all([
          submit('flatten', [file]),
          submit('info', [file]),
          submit('merge', [file, companion]),
          submit('metadata', [file], { title: 'many' }),
        ]);
        const done = await Promise.all(jobs.map((job) => client.waitFor(job.id, JOB_SECONDS)));
        for (const job of done) {
          expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
        }
      } finally {
        probing = false;
        await probe;
        clearInterval(rssTimer);
      }
      expect(peakRss).toBeLessThan(RSS_BOUND_BYTES);
      expect(Math.max(...latencies)).toBeLessThan(HEALTHZ_BOUND_MS);
    },
    JOB_SECONDS * 1000 + 60_000,
  );
});
