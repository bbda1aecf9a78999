// Runs the database conformance suite unchanged on PostgreSQL: a throwaway cluster from Debian's
// packages on loopback (test/support/pg-server.ts), a fresh schema per test (its own search_path). Plus what only
// PostgreSQL has: change notices between processes and claims from many connections at once.
import { afterAll, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/store/open.js';
import type { Database, JobChangeNotice } from '../../src/store/types.js';
import { type PgTestServer, startPostgresServer } from '../support/pg-server.js';
import { describeJobStoreConformance } from './job-store.suite.js';
import { ALICE, LEASE_MS, newJob } from './support/job-fixtures.js';

let server: Promise<PgTestServer> | undefined;
const freshUrl = async () => {
  server ??= startPostgresServer();
  return (await server).createSchema();
};

afterAll(async () => {
  if (server) await (await server).stop();
}, 30_000);

describeJobStoreConformance('postgres', async () => openDatabase(await freshUrl()), { freshUrl });

async function migrated(url: string): Promise<Database> {
  const db = await openDatabase(url, { poolMax: 12 });
  await db.migrate();
  return db;
}

describe('postgres specifics', () => {
  test('a change made through one connection pool is heard by another, not by itself', async () => {
    const url = await freshUrl();
    const [api, worker] = [await migrated(url), await migrated(url)];
    try {
      const heardByWorker: JobChangeNotice[] = [];
      const heardByApi: JobChangeNotice[] = [];
      const stopWorker = await worker.listenForChanges!((c) => heardByWorker.push(c));
      const stopApi = await api.listenForChanges!((c) => heardByApi.push(c));
      await api.accounts.createAccount({ id: ALICE, name: 'A', plan: 'free', createdAt: 1 });
      const job = await api.jobs.create(newJob());
      const claim = await worker.jobs.claimNext('w1', LEASE_MS);
      await api.jobs.cancel(ALICE, job.id);
      await expect.poll(() => heardByWorker.map((c) => c.kind)).toEqual(['created', 'canceled']);
      await expect.poll(() => heardByApi.map((c) => c.kind)).toEqual(['updated']);
      expect(heardByWorker.every((c) => c.jobId === job.id)).toBe(true);
      expect(claim?.job.id).toBe(job.id);
      await stopWorker();
      await stopApi();
    } finally {
      await api.close();
      await worker.close();
    }
  });

  test('eight connections claiming 200 jobs at once take each exactly once', async () => {
    const url = await freshUrl();
    const db = await migrated(url);
    try {
      for (const id of [ALICE, 'acct_bob', 'acct_carol']) {
        await db.accounts.createAccount({ id, name: id, plan: 'free', createdAt: 1 });
      }
      const ids = new Set<string>();
      for (let i = 0; i < 200; i++) {
        const accountId = [ALICE, 'acct_bob', 'acct_carol'][i % 3]!;
        ids.add((await db.jobs.create(newJob({ accountId, createdAt: 1000 + i }))).id);
      }
      const claimed: string[] = [];
      await Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          for (;;) {
            const claim = await db.jobs.claimNext(`w${w}`, LEASE_MS);
            if (!claim) return;
            claimed.push(claim.job.id);
          }
        }),
      );
      expect(claimed).toHaveLength(200);
      expect(new Set(claimed)).toEqual(ids);
    } finally {
      await db.close();
    }
  });
});
