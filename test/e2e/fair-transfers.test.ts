// Transfers hold no engine slot (docs/operations.md, "Transfers"): one account's imports from an
// origin that trickles a byte every 5 s and an export to a target that never reads leave both of the
// worker's two slots free for another account, and each such transfer fails once a stall window
// moves too little, with its stable code, instead of waiting out the 10-minute time limit.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { useTestServer } from '../support/use-test-server.js';

const pdf = readFileSync(corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf'));
/** Longer than another account's job may take here, so the stall cannot be what frees the slots. */
const STALL_MS = 8_000;

let slow: http.Server;
let slowUrl: string;
/** Requests the slow origin has seen, by path. */
const seen: Record<string, number> = {};
const timers = new Set<NodeJS.Timeout>();

const quire = useTestServer({
  QUIRE_TRANSFERS_ALLOW_PRIVATE: 'true',
  QUIRE_WORKER_CONCURRENCY: '2',
  QUIRE_TRANSFER_STALL_MS: String(STALL_MS),
});
beforeAll(async () => {
  slow = http.createServer((req, res) => {
    const route = new URL(req.url ?? '/', 'http://x').pathname;
    seen[route] = (seen[route] ?? 0) + 1;
    if (route === '/trickle.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.write('%PDF-1.7\n');
      const timer = setInterval(() => res.write('0'), 5_000);
      timers.add(timer);
      res.on('close', () => clearInterval(timer));
    }
    // '/sink': never reads the PUT body and never answers.
    else if (route === '/sink') req.pause();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  slow?.closeAllConnections();
  slow?.close();
});

async function submit(client: Client, parts: Array<[string, string | Blob, string?]>): Promise<JobBody> {
  const form = new FormData();
  form.set('tool', 'rotate');
  form.set('options', JSON.stringify({ angle: 90 }));
  for (const [name, value, filename] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, filename);
  }
  const response = await client.fetch('/api/v1/jobs', { method: 'POST', body: form });
  expect(response.status).toBe(201);
  return (await response.json()) as JobBody;
}

describe('slow transfers and the worker slots', () => {
  it('another account’s one-page job completes within 5 s while two imports trickle and an export is never read', async () => {
    const a = new Client(quire.server.url, (await quire.server.newAccount()).key);
    const b = new Client(quire.server.url, (await quire.server.newAccount()).key);
    const slowJobs = [
      await submit(a, [['file_url', `${slowUrl}/trickle.pdf`]]),
      await submit(a, [['file_url', `${slowUrl}/trickle.pdf`]]),
      await submit(a, [
        ['file', new Blob([pdf]), 'a.pdf'],
        ['export', `${slowUrl}/sink`],
      ]),
    ];
    // All three are on the network: both imports connected and the export's PUT arrived.
    await expect.poll(() => [seen['/trickle.pdf'], seen['/sink']], { timeout: 10_000 }).toEqual([2, 1]);
    const transfersStarted = Date.now();

    const started = Date.now();
    const quick = await b.run(
      { tool: 'rotate', options: { angle: 90 }, files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')] },
      10,
    );
    const seconds = (Date.now() - started) / 1000;
    expect(quick.status).toBe('succeeded');
    expect(seconds).toBeLessThan(5);
    for (const job of slowJobs) {
      expect(((await (await a.fetch(`/api/v1/jobs/${job.id}`)).json()) as JobBody).status).toBe('processing');
    }

    // The stall window ends them, with their stable codes, long before the 10-minute time limits.
    const ended = await Promise.all(slowJobs.map((job) => a.waitFor(job.id, 30)));
    const endedAfter = (Date.now() - transfersStarted) / 1000;
    expect(ended.map((job) => job.error?.code)).toEqual([
      'import_timeout',
      'import_timeout',
      'export_failed',
    ]);
    for (const job of ended) expect(job.error?.message).toContain('stalled');
    expect(endedAfter).toBeLessThan((2 * STALL_MS) / 1000 + 5);
    console.log(
      `fair transfers: B's job in ${seconds.toFixed(2)} s; A's stalled transfers failed after ${endedAfter.toFixed(1)} s`,
    );
  }, 60_000);
});
