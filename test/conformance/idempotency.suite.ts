// Conformance of the Idempotency-Key store (docs/api.md §4) and the rate limiter (docs/api.md §5): every
// Database implementation runs these unchanged.
import { describe, expect, test } from 'vitest';
import type { Database } from '../../src/store/job-stores.js';
import type { IdempotencyScope, StoredResponse } from '../../src/store/types.js';
import { ALICE, BOB, type OpenDatabase, T0, useDatabase } from './support/job-fixtures.js';

const scope: IdempotencyScope = { accountId: ALICE, method: 'POST', route: '/api/v1/jobs', key: 'k-1' };
const LOCK = 60_000;
const DAY = 86_400_000;
const response: StoredResponse = {
  status: 201,
  headers: { 'content-type': 'application/json; charset=utf-8', location: '/api/v1/jobs/job_1' },
  body: Buffer.from('{"id":"job_1","bytes":"\u00e9\\u0000"}'),
};

export function describeIdempotencyConformance(open: OpenDatabase): void {
  const db = useDatabase(open);

  describe('idempotency keys', () => {
    test('the first claim wins; concurrent claims of the same key find it in flight', async () => {
      const claims = await Promise.all(
        Array.from({ length: 10 }, () => db().idempotency.claim(scope, { now: T0, lockMs: LOCK })),
      );
      expect(claims.filter((c) => c.outcome === 'claimed')).toHaveLength(1);
      expect(claims.filter((c) => c.outcome === 'in_flight')).toHaveLength(9);
    });

    test('a completed key returns its fingerprint and the response byte for byte', async () => {
      const claim = await db().idempotency.claim(scope, { now: T0, lockMs: LOCK });
      if (claim.outcome !== 'claimed') throw new Error('expected a claim');
      expect(await db().idempotency.complete(scope, claim.token, 'fp-1', response, T0 + DAY)).toBe(true);
      const again = await db().idempotency.claim(scope, { now: T0 + 1000, lockMs: LOCK });
      expect(again).toEqual({ outcome: 'completed', fingerprint: 'fp-1', response });
      if (again.outcome === 'completed') expect(again.response.body.equals(response.body)).toBe(true);
    });

    test('keys are scoped by account, method and route', async () => {
      await db().idempotency.claim(scope, { now: T0, lockMs: LOCK });
      for (const other of [
        { ...scope, accountId: BOB },
        { ...scope, route: '/api/v1/jobs/:id/cancel' },
        { ...scope, method: 'PATCH' },
        { ...scope, key: 'K-1' },
      ]) {
        expect((await db().idempotency.claim(other, { now: T0, lockMs: LOCK })).outcome).toBe('claimed');
      }
    });

    test('a released key can be claimed again; a stale token neither releases nor completes', async () => {
      const first = await db().idempotency.claim(scope, { now: T0, lockMs: LOCK });
      if (first.outcome !== 'claimed') throw new Error('expected a claim');
      await db().idempotency.release(scope, 'not-the-token');
      expect((await db().idempotency.claim(scope, { now: T0, lockMs: LOCK })).outcome).toBe('in_flight');
      await db().idempotency.release(scope, first.token);
      const second = await db().idempotency.claim(scope, { now: T0 + 1, lockMs: LOCK });
      expect(second.outcome).toBe('claimed');
      expect(await db().idempotency.complete(scope, first.token, 'fp', response, T0 + DAY)).toBe(false);
    });

    test('a claim left in flight past its lock is taken over, and its old holder cannot complete', async () => {
      const dead = await db().idempotency.claim(scope, { now: T0, lockMs: LOCK });
      if (dead.outcome !== 'claimed') throw new Error('expected a claim');
      expect((await db().idempotency.claim(scope, { now: T0 + LOCK - 1, lockMs: LOCK })).outcome).toBe(
        'in_flight',
      );
      const next = await db().idempotency.claim(scope, { now: T0 + LOCK, lockMs: LOCK });
      expect(next.outcome).toBe('claimed');
      expect(await db().idempotency.complete(scope, dead.token, 'fp', response, T0 + DAY)).toBe(false);
    });

    test('prune deletes keys past retention, which then count as new', async () => {
      const claim = await db().idempotency.claim(scope, { now: T0, lockMs: LOCK });
      if (claim.outcome !== 'claimed') throw new Error('expected a claim');
      await db().idempotency.complete(scope, claim.token, 'fp', response, T0 + DAY);
      expect(await db().idempotency.prune(T0 + DAY - 1)).toBe(0);
      expect((await db().idempotency.claim(scope, { now: T0 + DAY - 1, lockMs: LOCK })).outcome).toBe(
        'completed',
      );
      // Past retention a key is new even before the sweeper has pruned it.
      expect((await db().idempotency.claim(scope, { now: T0 + DAY, lockMs: LOCK })).outcome).toBe('claimed');
      expect(await db().idempotency.prune(T0 + DAY + LOCK)).toBe(1);
    });
  });

  describeRateLimiterConformance(db);
}

/** The limiter's contract, for the database's own limiter and for one counting in memory over it. */
export function describeRateLimiterConformance(db: () => Database): void {
  describe('rate limiter', () => {
    const policy = { quota: 5, windowMs: 10_000 };

    test('allows a full quota at once, then refuses with the wait until the next request', async () => {
      const decisions = [];
      for (let i = 0; i < 6; i++) decisions.push(await db().rateLimits.consume('a', policy, T0));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
      expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
      expect(decisions[4]).toMatchObject({ resetMs: 10_000 });
      expect(decisions[5]).toMatchObject({ retryAfterMs: 2_000 });
      // Refused requests are not counted: waiting the announced time is enough.
      expect((await db().rateLimits.consume('a', policy, T0 + 1_999)).allowed).toBe(false);
      expect((await db().rateLimits.consume('a', policy, T0 + 2_000)).allowed).toBe(true);
    });

    test('refills smoothly, like a sliding window, and buckets are independent', async () => {
      for (let i = 0; i < 5; i++) await db().rateLimits.consume('a', policy, T0);
      expect((await db().rateLimits.consume('b', policy, T0)).remaining).toBe(4);
      const later = await db().rateLimits.consume('a', policy, T0 + 10_000);
      expect(later).toMatchObject({ allowed: true, remaining: 4 });
    });

    test('peek tells without counting', async () => {
      for (let i = 0; i < 4; i++) await db().rateLimits.consume('a', policy, T0);
      expect(await db().rateLimits.peek('a', policy, T0)).toMatchObject({ allowed: true, remaining: 1 });
      expect(await db().rateLimits.peek('a', policy, T0)).toMatchObject({ allowed: true, remaining: 1 });
      await db().rateLimits.consume('a', policy, T0);
      expect(await db().rateLimits.peek('a', policy, T0)).toMatchObject({ allowed: false, remaining: 0 });
      expect((await db().rateLimits.peek('never', policy, T0)).allowed).toBe(true);
    });

    test('concurrent consumers never exceed the quota', async () => {
      const decisions = await Promise.all(
        Array.from({ length: 40 }, () =>
          db().rateLimits.consume('burst', { quota: 25, windowMs: 60_000 }, T0),
        ),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
    });

    test('prune removes only buckets that are full again', async () => {
      await db().rateLimits.consume('old', policy, T0);
      await db().rateLimits.consume('new', policy, T0 + 5_000);
      expect(await db().rateLimits.prune(T0 + 2_001)).toBe(1);
      expect((await db().rateLimits.peek('new', policy, T0 + 5_000)).remaining).toBe(4);
    });
  });
}
