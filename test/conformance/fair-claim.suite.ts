// Conformance of fair claiming (docs/api.md §5): an account never runs more jobs than its plan allows,
// and accounts with queued work take turns however long one account's backlog is.
import { describe, expect, test } from 'vitest';
import type { ClaimLimits } from '../../src/store/types.js';
import {
  ALICE,
  BOB,
  LEASE_MS,
  newJob,
  type OpenDatabase,
  result,
  T0,
  useDatabase,
} from './support/job-fixtures.js';

// Fixtures: ALICE is on "pro", BOB on "free".
const limits: ClaimLimits = { concurrentJobsByPlan: { pro: 2, free: 1 }, defaultConcurrentJobs: 1 };

export function describeFairClaimConformance(open: OpenDatabase): void {
  const db = useDatabase(open);
  const claim = (now = T0 + 100) => db().jobs.claimNext('w1', LEASE_MS, now, limits);

  describe('fair claiming', () => {
    test('never runs more of an account’s jobs than its plan allows; the rest wait', async () => {
      for (let i = 0; i < 5; i++) await db().jobs.create(newJob({ createdAt: T0 + i }));
      const first = await claim();
      const second = await claim();
      expect(first?.plan).toBe('pro');
      expect(second).toBeDefined();
      expect(await claim()).toBeUndefined();
      await db().jobs.complete(first!.job.id, first!.leaseToken, result(first!.job.id), T0 + 9e6, T0 + 200);
      expect((await claim(T0 + 300))?.job.createdAt).toBe(T0 + 2);
      expect(await claim(T0 + 300)).toBeUndefined();
      expect((await db().jobs.countByStatus()).queued).toBe(2);
    });

    test('an account with one queued job goes before the next job of a long backlog', async () => {
      for (let i = 0; i < 50; i++) await db().jobs.create(newJob({ createdAt: T0 + i }));
      const late = await db().jobs.create(newJob({ accountId: BOB, createdAt: T0 + 1000 }));
      const generous = { concurrentJobsByPlan: { pro: 10, free: 10 }, defaultConcurrentJobs: 10 };
      const order: string[] = [];
      for (let i = 0; i < 3; i++) {
        const next = await db().jobs.claimNext('w1', LEASE_MS, T0 + 2000 + i, generous);
        order.push(next!.job.accountId);
      }
      // ALICE first (tie on running and last claim, broken by id), then BOB with none running.
      expect(order).toEqual([ALICE, BOB, ALICE]);
      expect((await db().jobs.get(BOB, late.id))?.status).toBe('processing');
    });

    test('with equal running counts, the account claimed longest ago goes next', async () => {
      for (let i = 0; i < 4; i++) await db().jobs.create(newJob({ createdAt: T0 + i }));
      for (let i = 0; i < 4; i++) await db().jobs.create(newJob({ accountId: BOB, createdAt: T0 + 10 + i }));
      const unlimited = { concurrentJobsByPlan: {}, defaultConcurrentJobs: 100 };
      const order: string[] = [];
      for (let i = 0; i < 6; i++) {
        const next = await db().jobs.claimNext('w1', LEASE_MS, T0 + 100 + i, unlimited);
        await db().jobs.complete(
          next!.job.id,
          next!.leaseToken,
          result(next!.job.id),
          T0 + 9e6,
          T0 + 100 + i,
        );
        order.push(next!.job.accountId);
      }
      expect(order).toEqual([ALICE, BOB, ALICE, BOB, ALICE, BOB]);
    });

    test('an account whose plan is not configured gets the default concurrency', async () => {
      await db().accounts.createAccount({ id: 'acct_legacy', name: 'L', plan: 'gold', createdAt: T0 });
      for (let i = 0; i < 3; i++)
        await db().jobs.create(newJob({ accountId: 'acct_legacy', createdAt: T0 + i }));
      expect((await claim())?.plan).toBe('gold');
      expect(await claim()).toBeUndefined();
    });

    test('without limits every queued job can be claimed, accounts still in turns', async () => {
      for (let i = 0; i < 3; i++) await db().jobs.create(newJob({ createdAt: T0 + i }));
      await db().jobs.create(newJob({ accountId: BOB, createdAt: T0 + 50 }));
      const order: string[] = [];
      for (let i = 0; i < 4; i++)
        order.push((await db().jobs.claimNext('w1', LEASE_MS, T0 + 100))!.job.accountId);
      expect(order).toEqual([ALICE, BOB, ALICE, ALICE]);
      expect(await db().jobs.claimNext('w1', LEASE_MS, T0 + 100)).toBeUndefined();
    });

    test('a worker restricted to some tools takes only their jobs; the others wait for it', async () => {
      // Oldest first: ALICE's office job, then her compress job; BOB has only an office job.
      const office = await db().jobs.create(newJob({ tool: 'office-to-pdf', createdAt: T0 }));
      const compress = await db().jobs.create(newJob({ tool: 'compress', createdAt: T0 + 1 }));
      await db().jobs.create(newJob({ accountId: BOB, tool: 'office-to-pdf', createdAt: T0 + 2 }));
      const noOffice = { ...limits, tools: ['compress', 'merge'] };
      const first = await db().jobs.claimNext('w1', LEASE_MS, T0 + 100, noOffice);
      expect(first?.job.id).toBe(compress.id);
      // ALICE's pro plan would allow a second job, and BOB has one queued: neither is runnable here.
      expect(await db().jobs.claimNext('w1', LEASE_MS, T0 + 100, noOffice)).toBeUndefined();
      expect(await db().jobs.claimNext('w1', LEASE_MS, T0 + 100, { ...limits, tools: [] })).toBeUndefined();
      // A worker with every engine takes them in the usual order: BOB runs nothing yet, so he first.
      expect((await db().jobs.claimNext('w2', LEASE_MS, T0 + 100, limits))?.job.accountId).toBe(BOB);
      expect((await db().jobs.claimNext('w2', LEASE_MS, T0 + 100, limits))?.job.id).toBe(office.id);
    });
  });
}
