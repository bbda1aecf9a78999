// What differs between the two SQL databases behind the stores. Everything else in src/store/sql is
// written once with Kysely and runs on both: the SQLite file of the embedded default and PostgreSQL
// for scale-out.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { JobError, JobResult } from '../../model/job.js';
import type { JobChangeNotice } from '../../model/job-change.js';
import type { ClaimedJob, ClaimLimits, RatePolicy } from '../types.js';
import type { EndpointRef } from './job-outbox.js';
import type { JobRow } from './job-rows.js';
import type { Transition } from './queued-messages.js';
import type { Tables } from './tables.js';

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
  /** Takes the next job in fair order (docs/api.md §5), notice included; see JobStore.claimNext. */
  claimNext(
    db: Kysely<Tables>,
    workerId: string,
    leaseMs: number,
    now: number,
    limits: ClaimLimits | undefined,
    expectWork: boolean,
  ): Promise<Transition<ClaimedJob | undefined>>;
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
   * Inside the transaction of a transition made in TypeScript: writes the outbox event for `row`'s
   * new status with its messages (sql/job-outbox.ts) and sends the change notice for it. True when
   * it queued messages. `known`: the account's enabled endpoints, when the transition's statement
   * already returned them (SQLite, sql/job-outbox.ts enabledEndpointsJson).
   */
  appendJobEvent(conn: Kysely<Tables>, row: JobRow, now: number, known?: EndpointRef[]): Promise<boolean>;
  /**
   * Ends a job the caller holds (JobStore.complete and fail): only while (id, token, processing)
   * still match; the outcome, the lease's end, the secret scrub and the job's event commit together
   * or not at all. The ended row; undefined when the lease was lost.
   */
  finishLeased(
    db: Kysely<Tables>,
    id: string,
    token: string,
    ending: JobEnding,
    now: number,
  ): Promise<Transition<JobRow | undefined>>;
  /**
   * After a commit that overwrote secrets (scrubbed options, cleared URLs): drops the copies the
   * database still keeps of the old bytes. SQLite's WAL holds the pages as first written until a
   * TRUNCATE checkpoint; PostgreSQL keeps old row versions until VACUUM, which is the operator's
   * (docs/operations.md, "Secrets at rest"), so there it does nothing.
   */
  forgetOverwritten(db: Kysely<Tables>): Promise<void>;
}

/** How a worker ends a job it holds. */
export type JobEnding =
  | { status: 'succeeded'; result: JobResult; expiresAt: number }
  | { status: 'failed'; error: JobError };
