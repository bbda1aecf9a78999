// What differs between the two SQL databases behind the stores. Everything else in src/store/sql is
// written once with Kysely and runs on both: the SQLite file of the embedded default and PostgreSQL
// for scale-out.
import type { Insertable, Kysely, SelectQueryBuilder } from 'kysely';
import type { ClaimedJob, ClaimLimits, JobChangeNotice, RatePolicy } from '../types.js';
import type { Tables, WebhookEventsTable } from './rows.js';

/** One forward-only schema step; each dialect keeps its own numbered list. */
export interface Migration {
  id: number;
  name: string;
  statements: readonly string[];
}

export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * Runs `work` in one transaction in which reading a row and then writing it is safe. SQLite takes
   * the database write lock first (BEGIN IMMEDIATE); PostgreSQL runs READ COMMITTED, so every read
   * whose rows the transaction then changes goes through `lockRows`.
   */
  transaction<T>(db: Kysely<Tables>, work: (conn: Kysely<Tables>) => Promise<T>): Promise<T>;
  /**
   * Locks the rows a read returns until the transaction ends (PostgreSQL FOR UPDATE, SKIP LOCKED
   * when `skipLocked`: another transaction's rows are passed over rather than waited for). SQLite's
   * write lock already excludes every other writer, so there it returns the query as it is.
   */
  lockRows<DB, TB extends keyof DB, O>(
    query: SelectQueryBuilder<DB, TB, O>,
    options?: { skipLocked?: boolean; of?: string },
  ): SelectQueryBuilder<DB, TB, O>;
  /** Takes the next job in fair order (contract §5), notice included; see JobStore.claimNext. */
  claimNext(
    db: Kysely<Tables>,
    workerId: string,
    leaseMs: number,
    now: number,
    limits: ClaimLimits | undefined,
  ): Promise<ClaimedJob | undefined>;
  /**
   * One GCRA step for `bucket` in a single atomic statement: the bucket's new theoretical arrival
   * time and whether this request was allowed (see sql/rate-limiter.ts).
   */
  consumeRate(
    db: Kysely<Tables>,
    bucket: string,
    policy: RatePolicy,
    now: number,
  ): Promise<{ tat: number; allowed: boolean }>;
  /**
   * Tells the other processes sharing the database that a job changed (PostgreSQL NOTIFY; inside a
   * transaction it is delivered on commit). SQLite has no such channel: other processes poll.
   */
  notify(conn: Kysely<Tables>, change: JobChangeNotice): Promise<void>;
  /**
   * Writes a job's outbox event, sends `notice` as `notify` would, and returns the account's enabled
   * webhook endpoints for the fan-out. PostgreSQL does all three in one statement (a claim or a
   * completion is mostly round trips); SQLite in two, with nothing to send.
   */
  insertJobEvent(
    conn: Kysely<Tables>,
    event: Insertable<WebhookEventsTable>,
    notice: JobChangeNotice,
  ): Promise<{ eventId: number; endpoints: Array<{ id: string; events: string }> }>;
}
