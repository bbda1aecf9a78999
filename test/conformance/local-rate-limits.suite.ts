// The in-memory rate limiter of local request state (docs/api.md §5) over each database: the same
// contract as the database's own limiter, no write per request, and counts that reach the database
// at the next sync, survive a restart and add up across processes.
import { describe, expect, test } from 'vitest';
import { LocalRateLimiter, withLocalRateLimits } from '../../src/store/local-rate-limiter.js';
import { SqlRateLimiter } from '../../src/store/sql/rate-limiter.js';
import { describeRateLimiterConformance } from './idempotency.suite.js';
import { type OpenDatabase, T0, useDatabase } from './support/job-fixtures.js';

/** Longer than any test: syncs happen only when a test asks for one. */
const NO_TIMER_MS = 600_000;

export function describeLocalRateLimitConformance(open: OpenDatabase): void {
  describe('local rate limits', () => {
    const db = useDatabase(async () => withLocalRateLimits(await open(), NO_TIMER_MS));
    describeRateLimiterConformance(db);

    const policy = { quota: 5, windowMs: 10_000 };
    const stored = () => {
      const limiter = (db().rateLimits as unknown as { stored: SqlRateLimiter }).stored;
      expect(limiter).toBeInstanceOf(SqlRateLimiter);
      return limiter;
    };
    const local = () => db().rateLimits as LocalRateLimiter;

    test('counts in memory; the next sync stores them and a restarted process starts from there', async () => {
      for (let i = 0; i < 3; i++) await local().consume('a', policy, T0);
      expect(await stored().read('a')).toBeUndefined();
      await local().sync();
      expect(await stored().read('a')).toBe(T0 + 6_000);
      const restarted = new LocalRateLimiter(stored(), NO_TIMER_MS);
      expect(await restarted.peek('a', policy, T0)).toMatchObject({ allowed: true, remaining: 2 });
      await restarted.close();
    });

    test('two processes counting the same bucket add up in the database', async () => {
      const now = Date.now();
      const other = new LocalRateLimiter(stored(), NO_TIMER_MS);
      for (let i = 0; i < 3; i++) await local().consume('shared', policy, now);
      for (let i = 0; i < 2; i++) await other.consume('shared', policy, now);
      await local().sync();
      await other.close();
      await local().sync();
      const fresh = new LocalRateLimiter(stored(), NO_TIMER_MS);
      expect(await fresh.peek('shared', policy, now)).toMatchObject({ allowed: false, remaining: 0 });
      // Each process learned the other's requests at its sync.
      expect(await local().peek('shared', policy, now)).toMatchObject({ allowed: false });
      await fresh.close();
    });
  });
}
