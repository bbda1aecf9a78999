// The rate limiter on SQLite and PostgreSQL: GCRA (the generic cell rate algorithm, a token bucket
// kept as one timestamp per bucket). One UPSERT decides and counts atomically (the dialect's
// `consumeRate`), so every process sharing the database sees one limit (docs/api.md §5). It is also
// where the in-memory limiter (../local-rate-limiter.ts) loads buckets and merges what it counted.
import { type Kysely, sql } from 'kysely';
import type { RateDecision, RateLimiter, RatePolicy } from '../types.js';
import type { SqlDialect } from './dialect.js';
import type { Tables } from './tables.js';

/** What a process counted in memory since it last synced a bucket (see `merge`). */
export interface LocalCount {
  /** Its bucket's theoretical arrival time now. */
  tat: number;
  /** The stored tat it last read or wrote; null when the bucket had no row. */
  base: number | null;
  /** The emission intervals it allowed since then, in milliseconds. */
  spentMs: number;
}

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
    return decide(tat, allowed, policy, now);
  }

  async peek(bucket: string, policy: RatePolicy, now = Date.now()): Promise<RateDecision> {
    const tat = (await this.read(bucket)) ?? now;
    return decide(Math.max(tat, now), gcraStep(tat, policy, now).allowed, policy, now);
  }

  async prune(now = Date.now()): Promise<number> {
    // tat in the past means the bucket is full again, exactly as if it had no row.
    const result = await this.db.deleteFrom('rate_limits').where('tat', '<', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The stored tat of `bucket`, undefined when it has no row (a full bucket). */
  async read(bucket: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('rate_limits')
      .select('tat')
      .where('bucket', '=', bucket)
      .executeTakeFirst();
    return row?.tat;
  }

  /**
   * Writes a bucket counted in memory and returns the stored tat. When the row still holds `base`,
   * no other process counted since: the local tat is exact and is stored as it is. Otherwise both
   * counted: this process's spent intervals go on top of what the row says (at least now), so the
   * row ends up with every process's requests, never fewer.
   */
  async merge(bucket: string, count: LocalCount, now = Date.now()): Promise<number> {
    // CAST, not ::float8, so one statement serves both dialects; PostgreSQL cannot type `$1 + $2`.
    const real = (value: number | null) => sql`CAST(${value} AS DOUBLE PRECISION)`;
    const { rows } = await sql<{ tat: number }>`
      INSERT INTO rate_limits (bucket, tat, allowed) VALUES (${bucket}, ${real(count.tat)}, ${this.dialect.name === 'sqlite' ? 1 : sql`true`})
      ON CONFLICT (bucket) DO UPDATE SET
        tat = CASE WHEN rate_limits.tat = ${real(count.base)} THEN ${real(count.tat)}
                   WHEN rate_limits.tat > ${real(now)} THEN rate_limits.tat + ${real(count.spentMs)}
                   ELSE ${real(now + count.spentMs)} END
      RETURNING tat`.execute(this.db);
    return rows[0]!.tat;
  }
}

function interval(policy: RatePolicy): number {
  return policy.windowMs / policy.quota;
}

/** One GCRA step on a tat held in memory: the new tat and whether the request is allowed. */
export function gcraStep(tat: number, policy: RatePolicy, now: number): { tat: number; allowed: boolean } {
  const next = Math.max(tat, now) + interval(policy);
  return next - now <= policy.windowMs ? { tat: next, allowed: true } : { tat, allowed: false };
}

/** The decision a client is told about, from the bucket's tat after the request. */
export function decide(tat: number, allowed: boolean, policy: RatePolicy, now: number): RateDecision {
  const ahead = Math.max(0, tat - now);
  const step = interval(policy);
  return {
    allowed,
    remaining: Math.max(0, Math.floor((policy.windowMs - ahead) / step + 1e-9)),
    resetMs: ahead,
    retryAfterMs: allowed ? 0 : Math.max(0, ahead + step - policy.windowMs),
  };
}
