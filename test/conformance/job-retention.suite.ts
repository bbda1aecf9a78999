// Conformance of the retention queues the cleaner drains (inputs of ended jobs, expired and deleted
// results) and of the status counts behind the queue metrics.
import { describe, expect, test } from 'vitest';
import type { JobRecord } from '../../src/model/job.js';
import type { Database } from '../../src/store/job-stores.js';
import {
  ALICE,
  LEASE_MS,
  newJob,
  type OpenDatabase,
  result,
  T0,
  useDatabase,
} from './support/job-fixtures.js';

const HOUR = 3_600_000;

/** Runs a job to success with a result that expires at `expiresAt`. */
async function succeed(db: Database, expiresAt: number, completedAt = T0 + 1): Promise<JobRecord> {
  const job = await db.jobs.create(newJob());
  const claim = await db.jobs.claimNext('w1', LEASE_MS, T0);
  if (claim?.job.id !== job.id) throw new Error('expected to claim the job just created');
  await db.jobs.complete(job.id, claim.leaseToken, result(job.id), expiresAt, completedAt);
  return job;
}

const ids = (jobs: JobRecord[]) => jobs.map((j) => j.id);

export function describeRetentionConformance(open: OpenDatabase): void {
  const db = useDatabase(open);

  describe('inputs of ended jobs', () => {
    test('lists terminal jobs until their inputs are marked deleted, oldest first', async () => {
      const done = await succeed(db(), T0 + HOUR, T0 + 2);
      const canceled = await db().jobs.create(newJob());
      await db().jobs.cancel(ALICE, canceled.id, T0 + 1);
      const processing = await db().jobs.create(newJob());
      await db().jobs.claimNext('w1', LEASE_MS, T0);
      const queued = await db().jobs.create(newJob());

      const pending = await db().jobs.listEndedWithInputs(10);
      expect(ids(pending)).toEqual([canceled.id, done.id]);
      expect(pending[1]?.inputs).toEqual(done.inputs);
      expect(ids(await db().jobs.listEndedWithInputs(1))).toEqual([canceled.id]);

      await db().jobs.markInputsDeleted(canceled.id);
      await db().jobs.markInputsDeleted(canceled.id);
      expect(ids(await db().jobs.listEndedWithInputs(10))).toEqual([done.id]);
      expect(ids(await db().jobs.listEndedWithInputs(10))).not.toContain(queued.id);
      expect(ids(await db().jobs.listEndedWithInputs(10))).not.toContain(processing.id);
    });

    test('includes deleted jobs, whose inputs must still go', async () => {
      const job = await db().jobs.create(newJob());
      await db().jobs.delete(ALICE, job.id, T0 + 3);
      expect(ids(await db().jobs.listEndedWithInputs(10))).toEqual([job.id]);
    });
  });

  describe('results', () => {
    test('lists succeeded jobs past expiry until their result is marked deleted', async () => {
      const expired = await succeed(db(), T0 + HOUR);
      const fresh = await succeed(db(), T0 + 3 * HOUR);
      const failed = await db().jobs.create(newJob());
      const claim = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      await db().jobs.fail(failed.id, claim.leaseToken, { code: 'timeout', message: 'x', retryable: false });

      expect(ids(await db().jobs.listExpiredResults(10, T0 + HOUR))).toEqual([]);
      expect(ids(await db().jobs.listExpiredResults(10, T0 + 2 * HOUR))).toEqual([expired.id]);
      await db().jobs.markResultDeleted(expired.id, T0 + 2 * HOUR);
      expect(ids(await db().jobs.listExpiredResults(10, T0 + 2 * HOUR))).toEqual([]);
      expect(await db().jobs.get(ALICE, expired.id)).toMatchObject({ resultDeletedAt: T0 + 2 * HOUR });
      expect(await db().jobs.get(ALICE, fresh.id)).toMatchObject({ resultDeletedAt: null });
    });

    test('lists a deleted job whose result still exists, before its expiry', async () => {
      const job = await succeed(db(), T0 + 5 * HOUR);
      await db().jobs.delete(ALICE, job.id, T0 + 2);
      const listed = await db().jobs.listExpiredResults(10, T0 + 3);
      expect(ids(listed)).toEqual([job.id]);
      expect(listed[0]?.result?.blobKey).toBe(`jobs/${job.id}/result`);
      await db().jobs.markResultDeleted(job.id);
      expect(await db().jobs.listExpiredResults(10, T0 + 6 * HOUR)).toEqual([]);
    });

    test('respects the limit across deleted and expired results', async () => {
      const deleted = await succeed(db(), T0 + 5 * HOUR);
      await db().jobs.delete(ALICE, deleted.id, T0 + 2);
      await succeed(db(), T0 + HOUR);
      await succeed(db(), T0 + HOUR);
      expect(await db().jobs.listExpiredResults(1, T0 + 2 * HOUR)).toHaveLength(1);
      expect(await db().jobs.listExpiredResults(2, T0 + 2 * HOUR)).toHaveLength(2);
      expect(await db().jobs.listExpiredResults(10, T0 + 2 * HOUR)).toHaveLength(3);
    });
  });

  describe('countByStatus', () => {
    test('counts every status, zeros included', async () => {
      expect(await db().jobs.countByStatus()).toEqual({
        queued: 0,
        processing: 0,
        succeeded: 0,
        failed: 0,
        canceled: 0,
      });
      await succeed(db(), T0 + HOUR);
      await db().jobs.create(newJob());
      await db().jobs.create(newJob());
      await db().jobs.claimNext('w1', LEASE_MS, T0);
      const canceled = await db().jobs.create(newJob());
      await db().jobs.cancel(ALICE, canceled.id);
      expect(await db().jobs.countByStatus()).toEqual({
        queued: 1,
        processing: 1,
        succeeded: 1,
        failed: 0,
        canceled: 1,
      });
    });
  });
}
