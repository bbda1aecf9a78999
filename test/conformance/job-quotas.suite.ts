// Conformance of what the plan's account quotas read (bytes stored, jobs active, jobs created in the
// window) and of job records expiring (docs/api.md §5), on every database.
import { describe, expect, test } from 'vitest';
import type { Database } from '../../src/store/job-stores.js';
import { openDatabase } from '../../src/store/open.js';
import { fromNewJob } from '../../src/store/sql/job-rows.js';
import {
  ALICE,
  BOB,
  LEASE_MS,
  newJob,
  type OpenDatabase,
  result,
  type StoreConformanceOptions,
  T0,
  useDatabase,
} from './support/job-fixtures.js';

const HOUR = 3_600_000;
/** The migration that added input_bytes and result_bytes (the same name on every dialect). */
const STORED_BYTES_MIGRATION =
  'job stored bytes: input and result sizes in columns, summed per account by an index';

/** Creates a job of ALICE's, claims it and runs it to success at `completedAt`. */
async function succeeded(db: Database, completedAt: number) {
  const job = await db.jobs.create(newJob());
  const claim = await db.jobs.claimNext('w1', LEASE_MS, T0);
  if (claim?.job.id !== job.id) throw new Error('expected to claim the job just created');
  await db.jobs.complete(job.id, claim.leaseToken, result(job.id), completedAt + HOUR, completedAt);
  return job;
}

export function describeQuotaConformance(open: OpenDatabase, options: StoreConformanceOptions = {}): void {
  const db = useDatabase(open);

  describe('account usage', () => {
    test('counts the bytes of inputs not yet deleted and results still kept, per account', async () => {
      const done = await succeeded(db(), T0 + 10);
      await db().jobs.create(newJob({ inputs: [input(500), input(700)] }));
      await db().jobs.create(newJob({ accountId: BOB, inputs: [input(4_000)] }));
      // done: input 1,234 + result 999; the queued job: 1,200.
      expect((await db().jobs.accountUsage(ALICE, T0)).storedBytes).toBe(1_234 + 999 + 1_200);
      await db().jobs.markInputsDeleted(done.id);
      expect((await db().jobs.accountUsage(ALICE, T0)).storedBytes).toBe(999 + 1_200);
      await db().jobs.markResultDeleted(done.id, T0 + 20);
      expect((await db().jobs.accountUsage(ALICE, T0)).storedBytes).toBe(1_200);
      expect((await db().jobs.accountUsage(BOB, T0)).storedBytes).toBe(4_000);
    });

    test('the stored bytes follow a job: created, its URL inputs recorded, completed, inputs deleted, result deleted', async () => {
      const usage = async () => (await db().jobs.accountUsage(ALICE, T0)).storedBytes;
      // A URL input has no size until the worker has fetched it.
      const job = await db().jobs.create(newJob({ inputs: [{ ...input(0), source: 'url' }] }));
      expect(await usage()).toBe(0);
      const claim = await db().jobs.claimNext('w1', LEASE_MS, T0);
      expect(claim?.job.id).toBe(job.id);
      expect(await db().jobs.recordInputs(job.id, 'not-the-token', [input(9_000)])).toBe(false);
      expect(await usage()).toBe(0);
      expect(await db().jobs.recordInputs(job.id, claim!.leaseToken, [input(2_500), input(500)])).toBe(true);
      expect(await usage()).toBe(3_000);
      await db().jobs.complete(job.id, claim!.leaseToken, result(job.id), T0 + HOUR, T0 + 10);
      expect(await usage()).toBe(3_000 + 999);
      await db().jobs.markInputsDeleted(job.id);
      expect(await usage()).toBe(999);
      await db().jobs.markResultDeleted(job.id, T0 + 20);
      expect(await usage()).toBe(0);
      expect((await db().jobs.get(ALICE, job.id))?.inputs.map((i) => i.size)).toEqual([2_500, 500]);
    });

    test('a failed job holds its inputs’ bytes until they are deleted, and no result bytes', async () => {
      const job = await db().jobs.create(newJob({ inputs: [input(4_000)] }));
      const claim = await db().jobs.claimNext('w1', LEASE_MS, T0);
      await db().jobs.fail(job.id, claim!.leaseToken, {
        code: 'pdf_corrupt',
        message: 'x',
        retryable: false,
      });
      expect((await db().jobs.accountUsage(ALICE, T0)).storedBytes).toBe(4_000);
      await db().jobs.markInputsDeleted(job.id);
      expect((await db().jobs.accountUsage(ALICE, T0)).storedBytes).toBe(0);
    });

    test('counts jobs queued or processing, and jobs created since the window began, deleted ones too', async () => {
      await succeeded(db(), T0 + 10);
      const deleted = await db().jobs.create(newJob({ createdAt: T0 + 50 }));
      await db().jobs.delete(ALICE, deleted.id, T0 + 60);
      await db().jobs.create(newJob({ createdAt: T0 + 70 }));
      await db().jobs.create(newJob({ createdAt: T0 + 80 }));
      expect(await db().jobs.accountUsage(ALICE, T0 + 40)).toMatchObject({ activeJobs: 2, createdSince: 3 });
      expect(await db().jobs.accountUsage(ALICE, T0)).toMatchObject({ activeJobs: 2, createdSince: 4 });
      expect(await db().jobs.accountUsage(BOB, T0)).toEqual({
        storedBytes: 0,
        activeJobs: 0,
        createdSince: 0,
      });
    });

    test("sums the declared length of the account's uploads until they expire", async () => {
      await db().uploads.create({
        id: 'up_a',
        accountId: ALICE,
        length: 3_000,
        createdAt: T0,
        expiresAt: T0 + HOUR,
      });
      await db().uploads.create({
        id: 'up_b',
        accountId: ALICE,
        length: 2_000,
        createdAt: T0,
        expiresAt: T0 + 10,
      });
      await db().uploads.create({
        id: 'up_c',
        accountId: BOB,
        length: 9_000,
        createdAt: T0,
        expiresAt: T0 + HOUR,
      });
      expect(await db().uploads.reservedBytes(ALICE, T0)).toBe(5_000);
      expect(await db().uploads.reservedBytes(ALICE, T0 + 10)).toBe(3_000);
      expect(await db().uploads.reservedBytes('acct_none', T0)).toBe(0);
    });
  });

  describe('upgrade', () => {
    test.skipIf(!options.migratedBefore)(
      'jobs written before the byte columns existed count the sizes in their JSON once migrated',
      async () => {
        const url = await options.freshUrl!();
        const old = await options.migratedBefore!(url, STORED_BYTES_MIGRATION);
        const jobs = {
          queued: newJob({ inputs: [input(500), input(700)] }),
          kept: newJob(),
          spent: newJob(),
          bob: newJob({ accountId: BOB, inputs: [input(4_000)] }),
        };
        try {
          await old
            .insertInto('accounts')
            .values([ALICE, BOB].map((id) => ({ id, name: id, plan: 'pro', created_at: T0 })))
            .execute();
          for (const job of Object.values(jobs)) {
            // The row as the previous version wrote it: no byte columns.
            const { input_bytes: _, ...row } = fromNewJob(job);
            await old.insertInto('jobs').values(row).execute();
          }
          const ended = { status: 'succeeded' as const, completed_at: T0 + 10, inputs_deleted_at: T0 + 11 };
          await old
            .updateTable('jobs')
            .set({ ...ended, result: JSON.stringify(result(jobs.kept.id)) })
            .where('id', '=', jobs.kept.id)
            .execute();
          await old
            .updateTable('jobs')
            .set({ ...ended, result: JSON.stringify(result(jobs.spent.id)), result_deleted_at: T0 + 12 })
            .where('id', '=', jobs.spent.id)
            .execute();
        } finally {
          await old.destroy();
        }
        const upgraded = await openDatabase(url);
        try {
          await upgraded.migrate();
          // queued: 500 + 700 of inputs; kept: its 999-byte result; spent: nothing left.
          expect((await upgraded.jobs.accountUsage(ALICE, T0)).storedBytes).toBe(1_200 + 999);
          expect((await upgraded.jobs.accountUsage(BOB, T0)).storedBytes).toBe(4_000);
          await upgraded.jobs.markResultDeleted(jobs.kept.id, T0 + 20);
          expect((await upgraded.jobs.accountUsage(ALICE, T0)).storedBytes).toBe(1_200);
        } finally {
          await upgraded.close();
        }
      },
    );
  });

  describe('job records past retention', () => {
    test('lists ended jobs that ended before the cut, oldest first, and never an active one', async () => {
      const old = await succeeded(db(), T0 + 10);
      const canceled = await db().jobs.create(newJob());
      await db().jobs.cancel(ALICE, canceled.id, T0 + 5);
      const recent = await succeeded(db(), T0 + 1_000);
      const queued = await db().jobs.create(newJob());
      const listed = (await db().jobs.listExpiredRecords(T0 + 500, 10)).map((j) => j.id);
      expect(listed).toEqual([canceled.id, old.id]);
      expect(listed).not.toContain(recent.id);
      expect((await db().jobs.listExpiredRecords(T0 + 10_000, 10)).map((j) => j.id)).not.toContain(queued.id);
      expect(await db().jobs.listExpiredRecords(T0 + 500, 1)).toHaveLength(1);
    });

    test('deletes the rows of ended jobs only, after which they are gone for every read', async () => {
      const old = await succeeded(db(), T0 + 10);
      const queued = await db().jobs.create(newJob());
      expect(await db().jobs.deleteRecords([old.id, queued.id])).toBe(1);
      expect(await db().jobs.get(ALICE, old.id)).toBeUndefined();
      expect(await db().jobs.get(ALICE, queued.id)).toBeDefined();
      expect(await db().jobs.listExpiredRecords(T0 + 10_000, 10)).toEqual([]);
      expect(await db().jobs.deleteRecords([])).toBe(0);
    });
  });
}

function input(size: number) {
  return { name: 'in.pdf', size, contentType: 'application/pdf', blobKey: `jobs/x/input-${size}` };
}
