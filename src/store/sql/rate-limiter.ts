// The rate limiter on SQLite and PostgreSQL: GCRA (the generic cell rate algorithm, a token bucket
// kept as one timestamp per bucket). One UPSERT decides and counts atomically (the dialect's
// `consumeRate`), so every process sharing the database sees one limit (docs/api.md §5).
import type { Kysely } from 'kysely';
import type { RateDecision, RateLimiter, RatePolicy } from '../types.js';
import type { SqlDialect } from './dialect.js';
import type { Tables } from './rows.js';

/**
 * GCRA in brief: each request moves the bucket's theoretical arrival time (tat) forward by one
 * emission interval T = window / quota. A request is allowed while the new tat stays within one
 * window of now, i.e. a full quota may be spent at once and then refills at one request per T.
 * This behaves like a sliding window without keeping a row per request.
 */
export class SqlRateLimiter implements RateLimiter {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
  ) {}

  async consume(bucket: string, policy: RatePolicy, now = Date.now()): Promise<RateDecision> {
    const { tat, allowed } = await this.dialect.consumeRate(this.db, bucket, policy, now);
    return decide(tat, allowed, policy, policy.windowMs / policy.quota, now);
  }

  async peek(bucket: string, policy: RatePolicy, now = Date.now()): Promise<RateDecision> {
    const interval = policy.windowMs / policy.quota;
    const row = await this.db
      .selectFrom('rate_limits')
      .select('tat')
      .where('bucket', '=', bucket)
      .executeTakeFirst();
    const tat = Math.max(row?.tat ?? now, now);
    return decide(tat, tat + interval - now <= policy.windowMs, policy, interval, now);
  }

  async prune(now = Date.now()): Promise<number> {
    // tat in the past means the bucket is full again, exactly as if it had no row.
    const result = await this.db.deleteFrom('rate_limits').where('tat', '<', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function decide(
  tat: number,
  allowed: boolean,
  policy: RatePolicy,
  interval: number,
  now: number,
): RateDecision {
  const ahead = Math.max(0, tat - now);
  return {
    allowed,
    remaining: Math.max(0, Math.floor((policy.windowMs - ahead) / interval + 1e-9)),
    resetMs: ahead,
    retryAfterMs: allowed ? 0 : Math.max(0, ahead + interval - policy.windowMs),
  };
}
