// Conformance of the worker protocol: claiming, leases, progress, completion and the expired-lease
// sweep. Every write a worker makes must be refused, and change nothing, once its lease is lost.
import { describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/store/open.js';
import {
  BOB,
  LEASE_MS,
  newJob,
  type OpenDatabase,
  result,
  type StoreConformanceOptions,
  scrubbedOptions,
  secretJob,
  T0,
  useDatabase,
} from './support/job-fixtures.js';
import { runStoreChildren } from './support/spawn-store-child.js';

export function describeLeaseConformance(open: OpenDatabase, options: StoreConformanceOptions): void {
  const db = useDatabase(open);

  describe('claimNext', () => {
    test('returns undefined when nothing is queued', async () => {
      expect(await db().jobs.claimNext('w1', LEASE_MS, T0)).toBeUndefined();
    });

    test('takes the oldest queued job first, ties broken by id', async () => {
      const later = await db().jobs.create(newJob({ createdAt: T0 + 10 }));
      const b = await db().jobs.create(newJob({ id: 'job_b', createdAt: T0 }));
      const a = await db().jobs.create(newJob({ id: 'job_a', createdAt: T0 }));
      const order = [];
      for (let i = 0; i < 3; i++) order.push((await db().jobs.claimNext('w1', LEASE_MS, T0 + 20))?.job.id);
      expect(order).toEqual([a.id, b.id, later.id]);
    });

    test('moves the job to processing with a fresh lease, attempts + 1 and started_at', async () => {
      const job = await db().jobs.create(newJob());
      const claim = await db().jobs.claimNext('w1', LEASE_MS, T0 + 5);
      expect(claim?.leaseToken).toMatch(/^[0-9a-f-]{36}$/);
      expect(claim?.leaseExpiresAt).toBe(T0 + 5 + LEASE_MS);
      expect(claim?.job).toMatchObject({ id: job.id, status: 'processing', attempts: 1, startedAt: T0 + 5 });
      expect(await db().jobs.get(job.accountId, job.id)).toMatchObject({ status: 'processing', attempts: 1 });
    });

    test('a reclaimed job keeps its first started_at and gets a new token', async () => {
      await db().jobs.create(newJob());
      const first = await db().jobs.claimNext('w1', LEASE_MS, T0);
      await db().jobs.sweepExpiredLeases(3, T0 + LEASE_MS + 1);
      const second = await db().jobs.claimNext('w2', LEASE_MS, T0 + LEASE_MS + 2);
      expect(second?.job).toMatchObject({ startedAt: T0, attempts: 2, stalls: 1 });
      expect(second?.leaseToken).not.toBe(first?.leaseToken);
    });

    test('says whether other queued jobs remained, so a worker need not claim again for nothing', async () => {
      const a = await db().jobs.create(newJob({ createdAt: T0 }));
      const b = await db().jobs.create(newJob({ createdAt: T0 + 1 }));
      const first = await db().jobs.claimNext('w1', LEASE_MS, T0 + 5);
      expect(first).toMatchObject({ job: { id: a.id }, moreQueued: true });
      // Told there is work (a notice woke it): the same claim, however it gets there.
      const second = await db().jobs.claimNext('w1', LEASE_MS, T0 + 5, undefined, true);
      expect(second).toMatchObject({ job: { id: b.id }, moreQueued: false });
      expect(await db().jobs.claimNext('w1', LEASE_MS, T0 + 5, undefined, true)).toBeUndefined();
    });

    test('counts only the queued jobs of the tools the claimer can run as remaining', async () => {
      await db().jobs.create(newJob({ tool: 'compress', createdAt: T0 }));
      await db().jobs.create(newJob({ tool: 'office-to-pdf', createdAt: T0 + 1 }));
      const limits = { concurrentJobsByPlan: {}, defaultConcurrentJobs: 10, tools: ['compress'] };
      expect(await db().jobs.claimNext('w1', LEASE_MS, T0 + 5, limits)).toMatchObject({ moreQueued: false });
    });

    test("counts every account's queued jobs as remaining, one at its limit too", async () => {
      const limits = { concurrentJobsByPlan: { free: 0 }, defaultConcurrentJobs: 10 };
      const alices = await db().jobs.create(newJob({ createdAt: T0 + 1 }));
      await db().jobs.create(newJob({ accountId: BOB, createdAt: T0 }));
      // Bob's plan allows no job now: Alice's is claimed, and Bob's still waits.
      expect(await db().jobs.claimNext('w1', LEASE_MS, T0 + 5, limits)).toMatchObject({
        job: { id: alices.id },
        moreQueued: true,
      });
      const unlimited = { concurrentJobsByPlan: {}, defaultConcurrentJobs: 10 };
      expect(await db().jobs.claimNext('w1', LEASE_MS, T0 + 5, unlimited)).toMatchObject({
        moreQueued: false,
      });
    });

    test('skips canceled and deleted jobs', async () => {
      const canceled = await db().jobs.create(newJob());
      const deleted = await db().jobs.create(newJob());
      const live = await db().jobs.create(newJob());
      await db().jobs.cancel(canceled.accountId, canceled.id, T0);
      await db().jobs.delete(deleted.accountId, deleted.id, T0);
      expect((await db().jobs.claimNext('w1', LEASE_MS, T0))?.job.id).toBe(live.id);
      expect(await db().jobs.claimNext('w1', LEASE_MS, T0)).toBeUndefined();
    });

    test('concurrent claims never hand out the same job', async () => {
      for (let i = 0; i < 10; i++) await db().jobs.create(newJob());
      const claims = await Promise.all(
        Array.from({ length: 25 }, (_, i) => db().jobs.claimNext(`w${i}`, LEASE_MS)),
      );
      const ids = claims.flatMap((c) => (c ? [c.job.id] : []));
      expect(ids).toHaveLength(10);
      expect(new Set(ids).size).toBe(10);
    });
  });

  describe('leases', () => {
    test('renewLease extends only while the token holds', async () => {
      const job = await db().jobs.create(newJob());
      const claim = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      expect(await db().jobs.renewLease(job.id, claim.leaseToken, LEASE_MS, T0 + 20_000)).toBe(true);
      expect(await db().jobs.renewLease(job.id, 'not-the-token', LEASE_MS, T0 + 20_000)).toBe(false);
      // Renewed to T0 + 50 s: a sweep at T0 + 40 s must leave it alone.
      expect(await db().jobs.sweepExpiredLeases(3, T0 + 40_000)).toEqual({ requeued: [], failed: [] });
    });

    test('release returns a claimed job to the queue without counting a stall', async () => {
      const job = await db().jobs.create(newJob());
      const claim = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      expect(await db().jobs.release(job.id, 'not-the-token')).toBe(false);
      expect(await db().jobs.release(job.id, claim.leaseToken)).toBe(true);
      expect(await db().jobs.release(job.id, claim.leaseToken)).toBe(false);
      expect(await db().jobs.get(job.accountId, job.id)).toMatchObject({
        status: 'queued',
        stalls: 0,
        attempts: 0,
      });
      expect(await db().jobs.heldLeases([{ id: job.id, token: claim.leaseToken }])).toEqual(new Set());
      const again = (await db().jobs.claimNext('w2', LEASE_MS, T0 + 1))!;
      expect(again.job.id).toBe(job.id);
      expect(again.job.attempts).toBe(1);
    });

    test('heldLeases answers for many jobs at once and drops lost ones', async () => {
      const jobs = [];
      for (let i = 0; i < 3; i++) jobs.push(await db().jobs.create(newJob()));
      const claims = [];
      for (let i = 0; i < 3; i++) claims.push((await db().jobs.claimNext('w1', LEASE_MS, T0))!);
      const [a, b, c] = claims as [(typeof claims)[0], (typeof claims)[0], (typeof claims)[0]];
      await db().jobs.cancel(b.job.accountId, b.job.id, T0);
      await db().jobs.complete(c.job.id, c.leaseToken, result(c.job.id), T0 + 1, T0);
      const leases = [a, b, c].map((x) => ({ id: x.job.id, token: x.leaseToken }));
      leases.push({ id: a.job.id, token: 'forged' }, { id: 'job_unknown', token: a.leaseToken });
      expect(await db().jobs.heldLeases(leases)).toEqual(new Set([a.job.id]));
      expect(await db().jobs.heldLeases([])).toEqual(new Set());
    });

    test('setProgress raises, never lowers and never reaches 100', async () => {
      const job = await db().jobs.create(newJob());
      const { leaseToken } = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      const progress = async () => (await db().jobs.get(job.accountId, job.id))?.progress;
      expect(await db().jobs.setProgress(job.id, leaseToken, 40.7)).toBe(true);
      expect(await progress()).toBe(40);
      expect(await db().jobs.setProgress(job.id, leaseToken, 10)).toBe(true);
      expect(await progress()).toBe(40);
      expect(await db().jobs.setProgress(job.id, leaseToken, 100)).toBe(true);
      expect(await progress()).toBe(99);
    });

    test('a lost lease refuses complete, fail and setProgress and changes nothing', async () => {
      const job = await db().jobs.create(secretJob());
      const stale = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      await db().jobs.sweepExpiredLeases(3, T0 + LEASE_MS + 1);
      const fresh = (await db().jobs.claimNext('w2', LEASE_MS, T0 + LEASE_MS + 2))!;
      await db().jobs.setProgress(job.id, fresh.leaseToken, 30);
      const before = await db().jobs.get(job.accountId, job.id);

      expect(await db().jobs.setProgress(job.id, stale.leaseToken, 80)).toBe(false);
      expect(await db().jobs.complete(job.id, stale.leaseToken, result(job.id), T0 + 9e6)).toBeUndefined();
      expect(
        await db().jobs.fail(job.id, stale.leaseToken, { code: 'timeout', message: 'x', retryable: false }),
      ).toBeUndefined();
      expect(await db().jobs.renewLease(job.id, stale.leaseToken, LEASE_MS)).toBe(false);
      expect(await db().jobs.get(job.accountId, job.id)).toEqual(before);
      expect(before).toMatchObject({ status: 'processing', progress: 30, options: job.options });
    });
  });

  describe('terminal writes', () => {
    test('complete stores the result, sets progress 100, ends the lease and scrubs secrets', async () => {
      const job = await db().jobs.create(secretJob());
      const { leaseToken } = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      expect(
        await db().jobs.complete(job.id, leaseToken, result(job.id), T0 + 3_600_000, T0 + 500),
      ).toMatchObject({ status: 'succeeded' });
      expect(await db().jobs.get(job.accountId, job.id)).toMatchObject({
        status: 'succeeded',
        progress: 100,
        result: result(job.id),
        error: null,
        expiresAt: T0 + 3_600_000,
        completedAt: T0 + 500,
        options: scrubbedOptions,
      });
      expect(await db().jobs.heldLeases([{ id: job.id, token: leaseToken }])).toEqual(new Set());
      expect(await db().jobs.complete(job.id, leaseToken, result(job.id), T0)).toBeUndefined();
      expect(
        await db().jobs.fail(job.id, leaseToken, { code: 'x', message: 'x', retryable: false }),
      ).toBeUndefined();
    });

    test('fail stores the error, keeps progress, ends the lease and scrubs secrets', async () => {
      const job = await db().jobs.create(secretJob());
      const { leaseToken } = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      await db().jobs.setProgress(job.id, leaseToken, 35);
      const error = {
        code: 'invalid_password',
        message: 'The password does not open this PDF',
        retryable: false,
      };
      expect(await db().jobs.fail(job.id, leaseToken, error, T0 + 700)).toMatchObject({ status: 'failed' });
      expect(await db().jobs.get(job.accountId, job.id)).toMatchObject({
        status: 'failed',
        progress: 35,
        error,
        result: null,
        completedAt: T0 + 700,
        options: scrubbedOptions,
      });
      expect(await db().jobs.renewLease(job.id, leaseToken, LEASE_MS)).toBe(false);
    });
  });

  describe('sweepExpiredLeases', () => {
    test('requeues an expired job with stalls + 1 and takes the lease from its worker', async () => {
      const job = await db().jobs.create(newJob());
      const { leaseToken } = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      // Expiry is strict: at exactly lease_expires_at the lease still holds.
      expect(await db().jobs.sweepExpiredLeases(3, T0 + LEASE_MS)).toEqual({ requeued: [], failed: [] });
      expect(await db().jobs.sweepExpiredLeases(3, T0 + LEASE_MS + 1)).toEqual({
        requeued: [job.id],
        failed: [],
      });
      expect(await db().jobs.get(job.accountId, job.id)).toMatchObject({ status: 'queued', stalls: 1 });
      expect(await db().jobs.complete(job.id, leaseToken, result(job.id), T0)).toBeUndefined();
      expect((await db().jobs.claimNext('w2', LEASE_MS))?.job.id).toBe(job.id);
    });

    test('fails the job with worker_lost once it has stalled maxStalls times', async () => {
      const job = await db().jobs.create(secretJob());
      await db().jobs.claimNext('w1', LEASE_MS, T0);
      expect(await db().jobs.sweepExpiredLeases(2, T0 + LEASE_MS + 1)).toEqual({
        requeued: [job.id],
        failed: [],
      });
      await db().jobs.claimNext('w2', LEASE_MS, T0 + LEASE_MS + 2);
      const end = T0 + 2 * LEASE_MS + 3;
      expect(await db().jobs.sweepExpiredLeases(2, end)).toEqual({ requeued: [], failed: [job.id] });
      const failed = await db().jobs.get(job.accountId, job.id);
      expect(failed).toMatchObject({
        status: 'failed',
        stalls: 2,
        completedAt: end,
        options: scrubbedOptions,
      });
      expect(failed?.error).toMatchObject({
        code: 'worker_lost',
        retryable: true,
        message: expect.any(String),
      });
      expect(await db().jobs.claimNext('w3', LEASE_MS, end)).toBeUndefined();
    });

    test('leaves alone jobs renewed, completed or canceled before the sweep', async () => {
      const renewed = await db().jobs.create(newJob());
      const completed = await db().jobs.create(newJob());
      const canceled = await db().jobs.create(newJob());
      const expired = await db().jobs.create(newJob());
      const claims = new Map<string, string>();
      for (let i = 0; i < 4; i++) {
        const claim = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
        claims.set(claim.job.id, claim.leaseToken);
      }
      await db().jobs.renewLease(renewed.id, claims.get(renewed.id)!, LEASE_MS, T0 + LEASE_MS - 1);
      await db().jobs.complete(
        completed.id,
        claims.get(completed.id)!,
        result(completed.id),
        T0 + 9e6,
        T0 + 1,
      );
      await db().jobs.cancel(canceled.accountId, canceled.id, T0 + 2);
      const outcome = await db().jobs.sweepExpiredLeases(3, T0 + LEASE_MS + 1);
      expect(outcome).toEqual({ requeued: [expired.id], failed: [] });
      expect(await db().jobs.get(renewed.accountId, renewed.id)).toMatchObject({
        status: 'processing',
        stalls: 0,
      });
      expect(await db().jobs.get(completed.accountId, completed.id)).toMatchObject({ status: 'succeeded' });
      expect(await db().jobs.get(canceled.accountId, canceled.id)).toMatchObject({ status: 'canceled' });
    });
  });

  describe('several processes', () => {
    test.skipIf(!options.freshUrl)(
      'a burst of claims from two processes never double-claims',
      async () => {
        const url = await options.freshUrl!();
        const shared = await openDatabase(url);
        await shared.migrate();
        await shared.accounts.createAccount({ id: 'acct_multi', name: 'M', plan: 'pro', createdAt: T0 });
        const ids = new Set<string>();
        for (let i = 0; i < 2_000; i++)
          ids.add((await shared.jobs.create(newJob({ accountId: 'acct_multi' }))).id);
        await shared.close();

        const outcomes = await runStoreChildren<{ claimed: string[] }>('claim', url, ['proc-a', 'proc-b']);
        const claimed = outcomes.flatMap((o) => o.claimed);
        expect(claimed).toHaveLength(ids.size);
        expect(new Set(claimed)).toEqual(ids);
        // Both processes took part, or the test proved nothing about cross-process locking. Two thousand
        // claims, with the short pause a worker's work makes between them (store-child.ts), keep both
        // busy together: back to back, one process once took all 2,000 while the other slept in
        // SQLite's busy handler.
        for (const outcome of outcomes)
          expect(outcome.claimed.length, 'claims per process').toBeGreaterThan(0);
        // Two child processes compiling TypeScript, then hundreds of claims each: slow on a loaded CI box.
      },
      180_000,
    );

    test.skipIf(!options.freshUrl)('a rate limit holds across processes sharing the database', async () => {
      const url = await options.freshUrl!();
      const shared = await openDatabase(url);
      await shared.migrate();
      await shared.close();
      const outcomes = await runStoreChildren<{ allowed: number }>('rate', url, [
        'proc-a',
        'proc-b',
        'proc-c',
      ]);
      expect(outcomes.reduce((sum, o) => sum + o.allowed, 0)).toBe(60);
    });
  });
}
