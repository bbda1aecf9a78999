// A download asked for when the result has under a second of retention left (docs/api.md §2): 410
// `result_expired` on local disk and on S3 alike, never a 500 (S3 cannot presign a link for less than
// a second) and never a link that dies before it can be followed.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { type S3TestServer, startS3Server } from '../support/s3-server.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Long enough to run a rotate and fetch its link once; the sweeper stays away meanwhile. */
const RETENTION_MS = 6_000;
const settings = { QUIRE_RESULT_RETENTION_MS: String(RETENTION_MS), QUIRE_SWEEP_INTERVAL_MS: '60000' };

let s3: S3TestServer;
const servers: TestServer[] = [];

beforeAll(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, s3.env);
}, 60_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await s3?.stop();
});

describe.each(['local disk', 'S3'])('download near the end of retention on %s', (store) => {
  it('links the result while it lasts, then answers 410 result_expired with under a second left', async () => {
    const server = await startTestServer(
      store === 'S3' ? { ...settings, QUIRE_STORAGE_URL: s3.storageUrl(`near-${randomUUID()}`) } : settings,
    );
    servers.push(server);
    const account = await server.newAccount();
    const client = new Client(server.url, account.key);
    const job = await client.run({
      tool: 'rotate',
      options: { angle: 90 },
      files: [corpusFile('pypdf-samples__pdflatex-4-pages.pdf')],
    });
    expect(job.status).toBe('succeeded');
    // The record's own milliseconds: the view's `expires_at` is cut to whole seconds.
    const expiresAt = (await server.runtime.db.jobs.get(account.accountId, job.id))!.expiresAt!;
    expect((await client.fetch(`/api/v1/jobs/${job.id}/download`)).status).toBe(302);

    await sleep(Math.max(0, expiresAt - 800 - Date.now()));
    const answers = await Promise.all(
      ['*/*', 'application/json'].map((accept) =>
        client.fetch(`/api/v1/jobs/${job.id}/download`, { headers: { accept } }),
      ),
    );
    expect(expiresAt - Date.now()).toBeGreaterThan(0); // still inside retention when answered
    for (const answer of answers) {
      expect(answer.status).toBe(410);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await answer.json()) as { code: string }).code).toBe('result_expired');
    }
  }, 60_000);
});
