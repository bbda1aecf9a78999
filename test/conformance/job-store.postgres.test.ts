// Runs the database conformance suite unchanged on PostgreSQL: a throwaway cluster from Debian's
// packages on loopback (test/support/pg-server.ts), a fresh schema per test (its own search_path). Plus what only
// PostgreSQL has: change notices between processes and claims from many connections at once.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { decodeTime } from 'ulid';
import { afterAll, describe, expect, test } from 'vitest';
import type { JobChangeNotice } from '../../src/model/job-change.js';
import type { Database } from '../../src/store/job-stores.js';
import { openDatabase } from '../../src/store/open.js';
import { openPostgres } from '../../src/store/postgres/connection.js';
import { migrations, runMigrations } from '../../src/store/postgres/migrations.js';
import { accountUsageQuery } from '../../src/store/sql/job-quotas.js';
import type { ClaimedJob } from '../../src/store/types.js';
import { type PgTestServer, startPostgresServer } from '../support/pg-server.js';
import { describeJobStoreConformance } from './job-store.suite.js';
import { describeLocalRateLimitConformance } from './local-rate-limits.suite.js';
import {
  ALICE,
  BOB,
  endpoint,
  LEASE_MS,
  migrationsBefore,
  newJob,
  result,
  T0,
} from './support/job-fixtures.js';

let server: Promise<PgTestServer> | undefined;
const freshUrl = async () => {
  server ??= startPostgresServer();
  return (await server).createSchema();
};

afterAll(async () => {
  if (server) await (await server).stop();
}, 90_000);

describeJobStoreConformance('postgres', async () => openDatabase(await freshUrl()), {
  freshUrl,
  async migratedBefore(url, name) {
    const db = openPostgres(url, { poolMax: 1 });
    await runMigrations(db, T0, migrationsBefore(migrations, name));
    return db;
  },
});
describeLocalRateLimitConformance(async () => openDatabase(await freshUrl()));

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

  test('webhook messages queued through one pool wake the listeners of another, and nothing else does', async () => {
    const url = await freshUrl();
    const [api, worker] = [await migrated(url), await migrated(url)];
    try {
      let heardByWorker = 0;
      const changes: JobChangeNotice[] = [];
      worker.webhooks.onQueued(() => heardByWorker++);
      const stop = await worker.listenForChanges!((c) => changes.push(c));
      await api.accounts.createAccount({ id: ALICE, name: 'A', plan: 'free', createdAt: 1 });
      await api.webhooks.createEndpoint({ ...endpoint(), events: ['job.canceled'] });
      const quiet = await api.jobs.create(newJob());
      await api.jobs.create(newJob());
      await api.jobs.cancel(ALICE, quiet.id);
      await expect.poll(() => changes.length).toBe(3);
      expect(heardByWorker).toBe(1);
      await stop();
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

  test('an account at its plan’s limit gets no more claims, however many claimers race for it', async () => {
    const url = await freshUrl();
    const db = await migrated(url);
    try {
      await db.accounts.createAccount({ id: ALICE, name: 'A', plan: 'free', createdAt: 1 });
      for (let i = 0; i < 200; i++) await db.jobs.create(newJob({ createdAt: 1000 + i }));
      const limits = { concurrentJobsByPlan: { free: 2 }, defaultConcurrentJobs: 2 };
      // Each round, eight claimers race for an account that may run two jobs; then both finish.
      // Each claim commits while others' statements are under way, so the limit check must see
      // claims its own statement's snapshot does not.
      for (let round = 0; round < 25; round++) {
        const claims = await Promise.all(
          Array.from({ length: 8 }, (_, w) => db.jobs.claimNext(`w${w}`, LEASE_MS, Date.now(), limits)),
        );
        const won = claims.filter((c): c is ClaimedJob => c !== undefined);
        expect(won, `round ${round}`).toHaveLength(2);
        for (const claim of won) {
          expect(
            await db.jobs.complete(claim.job.id, claim.leaseToken, result(claim.job.id), T0),
          ).toMatchObject({ status: 'succeeded' });
        }
      }
    } finally {
      await db.close();
    }
  });

  test('the running count the claim checks matches the jobs through every kind of transition', async () => {
    const url = await freshUrl();
    const db = await migrated(url);
    const raw = new pg.Client({ connectionString: url });
    await raw.connect();
    try {
      for (const id of [ALICE, BOB])
        await db.accounts.createAccount({ id, name: id, plan: 'pro', createdAt: 1 });
      const ids = [];
      for (let i = 0; i < 40; i++) {
        ids.push((await db.jobs.create(newJob({ accountId: i % 2 ? BOB : ALICE, createdAt: 1000 + i }))).id);
      }
      const claims: ClaimedJob[] = [];
      for (let i = 0; i < 30; i++) claims.push((await db.jobs.claimNext('w1', LEASE_MS, T0 + i))!);
      const error = { code: 'pdf_corrupt' as const, message: 'x', retryable: false };
      // Ended by its worker, canceled, deleted, handed back, left to expire, or still running.
      for (const [i, claim] of claims.entries()) {
        const { id, accountId } = claim.job;
        if (i % 6 === 0) await db.jobs.complete(id, claim.leaseToken, result(id), T0 + 9e6);
        if (i % 6 === 1) await db.jobs.fail(id, claim.leaseToken, error);
        if (i % 6 === 2) await db.jobs.cancel(accountId, id);
        if (i % 6 === 3) await db.jobs.delete(accountId, id);
        if (i % 6 === 4) await db.jobs.release(id, claim.leaseToken);
      }
      await db.jobs.renewLease(claims[5]!.job.id, claims[5]!.leaseToken, LEASE_MS, T0 + 10 * LEASE_MS);
      const swept = await db.jobs.sweepExpiredLeases(2, T0 + 2 * LEASE_MS);
      expect(swept.requeued.length).toBeGreaterThan(0);
      await db.jobs.cancel(ALICE, ids[38]!);
      const { rows } = await raw.query(`
        SELECT a.id, a.running,
          (SELECT count(*)::int FROM jobs j WHERE j.account_id = a.id AND j.status = 'processing') AS actual
        FROM accounts a ORDER BY a.id`);
      expect(rows.map((r) => r.running)).toEqual(rows.map((r) => r.actual));
      expect(rows.reduce((sum, r) => sum + r.actual, 0)).toBeGreaterThan(0);
    } finally {
      await raw.end();
      await db.close();
    }
  });

  test('the quota check finds an account’s usage through its three indexes, never a scan of the jobs table', async () => {
    const db = openPostgres(await freshUrl(), { poolMax: 1 });
    try {
      await runMigrations(db);
      // 100 accounts of 60 jobs: 50 ended with their files deleted, 8 ended holding their results,
      // 2 queued. One account is a sliver of the table, as in a service of many accounts.
      await sql`INSERT INTO accounts (id, name, plan, created_at)
        SELECT 'acct_' || a, 'n', 'pro', 0 FROM generate_series(1, 100) a`.execute(db);
      await sql`INSERT INTO jobs (id, account_id, tool, options, secret_options, metadata, inputs, status,
          created_at, inputs_deleted_at, result_deleted_at, next_steps, input_bytes, result_bytes)
        SELECT 'job_' || a || '_' || j, 'acct_' || a, 'rotate', '{}', '[]', '{}', '[]',
          CASE WHEN j > 58 THEN 'queued' ELSE 'succeeded' END, j,
          CASE WHEN j <= 58 THEN j END, CASE WHEN j <= 50 THEN j END, '[]', 10,
          CASE WHEN j <= 58 THEN 20 ELSE 0 END
        FROM generate_series(1, 100) a, generate_series(1, 60) j`.execute(db);
      await sql`ANALYZE jobs`.execute(db);
      const { sql: text, parameters } = accountUsageQuery(db, 'acct_7', 55).compile();
      const rows = (
        await db.executeQuery<Record<string, string>>(CompiledQuery.raw(`EXPLAIN ${text}`, [...parameters]))
      ).rows;
      const plan = rows.map((r) => r['QUERY PLAN']!).join('\n');
      expect(plan).not.toMatch(/Seq Scan/);
      const indexes = Array.from(
        plan.matchAll(/(?:Index Only Scan using|Index Scan using|Bitmap Index Scan on) (\w+)/g),
        (m) => m[1],
      );
      expect(indexes).toEqual(['jobs_account_stored', 'jobs_account_status', 'jobs_account_created']);
      expect(await accountUsageQuery(db, 'acct_7', 55).executeTakeFirst()).toEqual({
        stored: 180,
        active: 2,
        recent: 6,
      });
    } finally {
      await db.destroy();
    }
  });

  test('message ids made inside a statement are ULIDs carrying its time', async () => {
    const url = await freshUrl();
    await (await migrated(url)).close();
    const raw = new pg.Client({ connectionString: url });
    await raw.connect();
    try {
      const { rows } = await raw.query('SELECT quire_ulid($1::bigint) AS id FROM generate_series(1, 500)', [
        T0,
      ]);
      const ids = rows.map((r) => r.id as string);
      for (const id of ids) {
        expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
        expect(decodeTime(id)).toBe(T0);
      }
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await raw.end();
    }
  });
});

describe('scrubbed secrets on disk (docs/operations.md "Secrets at rest")', () => {
  /** The bytes of a table's files as they are on disk (heap and TOAST), after a CHECKPOINT writes them out. */
  async function tableFiles(client: pg.Client, table: string): Promise<{ paths: string[]; bytes: Buffer }> {
    await client.query('CHECKPOINT');
    const dir = (await client.query<{ d: string }>('SELECT current_setting($1) AS d', ['data_directory']))
      .rows[0]!.d;
    const { rows } = await client.query<{ heap: string; toast: string | null }>(
      `SELECT pg_relation_filepath(c.oid) AS heap, pg_relation_filepath(NULLIF(c.reltoastrelid, 0)) AS toast
         FROM pg_class c WHERE c.oid = $1::regclass`,
      [table],
    );
    const paths = [rows[0]!.heap, rows[0]!.toast]
      .filter((p): p is string => p !== null)
      .map((p) => path.join(dir, p));
    return { paths, bytes: await readAll(paths) };
  }

  /** A relation's old files are emptied at VACUUM FULL's commit and unlinked at the next checkpoint. */
  async function readAll(paths: string[]): Promise<Buffer> {
    const parts = await Promise.all(paths.map((p) => readFile(p).catch(() => Buffer.alloc(0))));
    return Buffer.concat(parts);
  }

  test('a canceled job’s fill-form value stays in a dead row version until the documented VACUUM FULL, and is gone after it', async () => {
    const url = await freshUrl();
    const db = await migrated(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const canary = `pg-scrub-canary-${randomUUID()}`;
      await db.accounts.createAccount({ id: ALICE, name: 'A', plan: 'free', createdAt: 1 });
      const job = await db.jobs.create(
        newJob({ tool: 'fill-form', options: { values: { name: canary } }, secretOptions: ['values'] }),
      );
      await db.jobs.cancel(ALICE, job.id);
      expect(JSON.stringify(await db.jobs.get(ALICE, job.id))).not.toContain(canary);
      // The scrub wrote a new row version; the old one, canary included, is still in the file.
      const before = await tableFiles(client, 'jobs');
      expect(before.bytes.includes(canary)).toBe(true);

      await client.query('VACUUM FULL jobs, webhook_messages, webhook_events');
      const after = await tableFiles(client, 'jobs');
      expect(after.paths).not.toEqual(before.paths);
      expect(after.bytes.includes(canary)).toBe(false);
      expect((await readAll(before.paths)).includes(canary)).toBe(false);
      expect(JSON.stringify((await db.jobs.get(ALICE, job.id))!.options)).toContain('[redacted]');
    } finally {
      await client.end();
      await db.close();
    }
  });
});
