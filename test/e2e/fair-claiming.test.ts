// docs/api.md §5, measured over real HTTP, SQLite and engines: one account's backlog does not starve
// another account's job, an account never runs more jobs at once than its plan allows, and its
// plan's result retention applies.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/model/job.js';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';

const small = readFileSync(corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf'));
const fourPages = readFileSync(corpusFile('pypdf-samples__pdflatex-4-pages.pdf'));
const servers: TestServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

/**
 * Quick rotate jobs by default; `slow` makes each job a lossless compress of four pages (qpdf's
 * opening and its rewrite of every stream: about 0.1 s a job, two at a time).
 */
async function submitMany(client: Client, count: number, parallel = 8, slow = false): Promise<void> {
  const job = slow
    ? { tool: 'compress', options: { level: 'lossless' }, files: [{ name: 'a.pdf', data: fourPages }] }
    : { tool: 'rotate', options: { angle: 90 }, files: [{ name: 'a.pdf', data: small }] };
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      await client.submit(job);
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
}

async function jobsOf(server: TestServer, accountId: string, status?: JobRecord['status']) {
  return (await server.runtime.db.jobs.list(accountId, { status, limit: 1000 })).jobs;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('fair claiming', () => {
  it('a single job of account B completes before the 10th of account A’s 200 queued jobs', async () => {
    const server = await startTestServer({ QUIRE_WORKER_CONCURRENCY: '2' });
    servers.push(server);
    const a = await server.newAccount();
    const b = await server.newAccount();
    // Slow jobs: a forkserver rotate ends in a few ms, so two workers would nearly keep up
    // with the submissions and leave no backlog (49 of 200 queued in one suite run).
    await submitMany(new Client(server.url, a.key), 200, 8, true);
    const queuedBefore = await jobsOf(server, a.accountId, 'queued');
    console.log(`fair claiming: ${queuedBefore.length} of A's 200 jobs still queued when B submits`);
    // The workers have been busy meanwhile; a real backlog must remain or the test proves nothing.
    expect(queuedBefore.length).toBeGreaterThan(50);

    const clientB = new Client(server.url, b.key);
    const jobB = await clientB.submit({
      tool: 'rotate',
      options: { angle: 90 },
      files: [{ name: 'b.pdf', data: small }],
    });
    const doneB = await clientB.waitFor(jobB.id);
    expect(doneB.status).toBe('succeeded');
    const finishedB = (await server.runtime.db.jobs.get(b.accountId, jobB.id))!.completedAt!;

    const ids = new Set(queuedBefore.map((j) => j.id));
    const aheadOfB = (await jobsOf(server, a.accountId)).filter(
      (j) => ids.has(j.id) && j.completedAt !== null && j.completedAt <= finishedB,
    );
    // With two workers, B waits at most for a slot to free up: about two of A's jobs, never ten.
    expect(aheadOfB.length).toBeLessThan(10);
  });

  it('an account on a plan with 2 concurrent jobs never has 3 running, even with 4 idle workers', async () => {
    const server = await startTestServer({ QUIRE_WORKER_CONCURRENCY: '4' });
    servers.push(server);
    const accountId = `acct_free_${Date.now()}`;
    await server.runtime.db.accounts.createAccount({
      id: accountId,
      name: 'f',
      plan: 'free',
      createdAt: Date.now(),
    });
    const client = new Client(server.url, await server.keyFor(accountId, ['jobs:write']));
    // Rotate jobs end within a few ms, too quick for sampling to see two at once; compress jobs
    // last long enough for the samples below to catch every overlap.
    await submitMany(client, 20, 4, true);

    let most = 0;
    let samples = 0;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; samples++) {
      const running = (await jobsOf(server, accountId, 'processing')).length;
      most = Math.max(most, running);
      if ((await jobsOf(server, accountId, 'succeeded')).length === 20) break;
      await sleep(2);
    }
    expect((await jobsOf(server, accountId, 'succeeded')).length).toBe(20);
    expect(samples).toBeGreaterThan(10);
    expect(most).toBe(2);
    // The plan's result retention applied to its jobs: free keeps results 1 h (the server allows 24 h).
    for (const job of await jobsOf(server, accountId, 'succeeded')) {
      expect(job.expiresAt! - job.completedAt!).toBe(3_600_000);
    }
  });
});
