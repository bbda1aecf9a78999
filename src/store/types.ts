// Store interfaces: operations the service needs, not generic query helpers. SQLite (the embedded
// default) and PostgreSQL (scale-out) implement them and run the same conformance suites.

import type { Account, ApiKeyRecord } from '../model/account.js';
import type {
  JobRecipe,
  JobRecord,
  JobStatus,
  JobStep,
  JobTransferSecrets,
  JobTransfers,
} from '../model/job.js';
import type { JobChangeNotice } from '../model/job-change.js';
import type { RecipeStore } from './recipe-types.js';
import type { UploadStore } from './upload-types.js';
import type { WebhookStore } from './webhook-types.js';

/** A job as handed to a worker: the record plus the lease it must present on every write. */
export interface ClaimedJob {
  job: JobRecord;
  leaseToken: string;
  leaseExpiresAt: number;
  /** The owning account's plan at claim time, so the worker applies that plan's limits. */
  plan: string;
  /**
   * Whether other queued jobs (of the claimer's tools) were left when this one was taken; false lets
   * a worker with nothing new announced sleep after the job instead of claiming once more for
   * nothing. Absent means unknown: claim again.
   */
  moreQueued?: boolean;
}

/**
 * Fair claiming (docs/api.md §5): an account runs at most its plan's number of jobs at once, and
 * accounts with queued work take turns. Without it every account is unlimited (still in turns).
 */
export interface ClaimLimits {
  /** Plan name → most jobs of one account processing at once. */
  concurrentJobsByPlan: Readonly<Record<string, number>>;
  /** For accounts whose plan is not in the map. */
  defaultConcurrentJobs: number;
  /**
   * Only jobs of these tools (the ones this worker's engines can run); absent means any tool. A
   * worker without LibreOffice leaves office-to-pdf jobs to the workers that have it.
   */
  tools?: readonly string[];
  /**
   * The tools this worker lacks: a job with a later step (next_steps) of one of them is left for a
   * worker that has them all, rather than failed with engine_unavailable at that step.
   */
  unavailableTools?: readonly string[];
}

/** What creating a job takes: the record's fixed fields; the rest starts empty (queued, no result). */
export type NewJob = Pick<
  JobRecord,
  'id' | 'accountId' | 'tool' | 'options' | 'secretOptions' | 'metadata' | 'inputs' | 'createdAt'
> & {
  /** The steps after the first (`tool`, `options`); none for a one-tool job. */
  nextSteps?: JobStep[];
  batchId?: string;
  recipe?: JobRecipe;
  transfers?: JobTransfers;
  transferSecrets?: JobTransferSecrets;
  webhookUrl?: string;
};

export interface ListJobsQuery {
  status?: JobStatus;
  tool?: string;
  limit: number;
  /**
   * Job id: return jobs strictly older than this one (newest first). An id that is not one of the
   * account's jobs (a deleted one still counts) makes `list` throw QuireError `invalid_cursor`.
   */
  startingAfter?: string;
}

export type CancelOutcome =
  | { outcome: 'canceled'; job: JobRecord; wasProcessing: boolean }
  | { outcome: 'terminal'; job: JobRecord }
  | { outcome: 'not_found' };

export interface SweepOutcome {
  /** Jobs whose lease expired and went back to the queue. */
  requeued: string[];
  /** Jobs that exceeded the stall limit and failed with `worker_lost`. */
  failed: string[];
}

export interface AccountStore {
  createAccount(account: Account): Promise<Account>;
  getAccount(id: string): Promise<Account | undefined>;
  listAccounts(): Promise<Account[]>;
  /** Changes name and/or plan; undefined when the account does not exist. */
  updateAccount(id: string, changes: { name?: string; plan?: string }): Promise<Account | undefined>;
  createKey(key: ApiKeyRecord): Promise<ApiKeyRecord>;
  /**
   * By the public 8-character key id embedded in the key string, with its account's plan: one read,
   * since every keyed request needs both.
   */
  findKey(keyId: string): Promise<{ key: ApiKeyRecord; plan: string } | undefined>;
  listKeys(accountId?: string): Promise<ApiKeyRecord[]>;
  /** By public key id; true when the key exists (revoking twice keeps the first time), false if unknown. */
  revokeKey(keyId: string, now?: number): Promise<boolean>;
}

/** Where an Idempotency-Key applies (docs/api.md §4): one account, one method, one route template. */
export interface IdempotencyScope {
  accountId: string;
  method: string;
  route: string;
  key: string;
}

/** A finished response kept for replay, byte for byte. */
export interface StoredResponse {
  status: number;
  /** The headers that are part of the replay (Content-Type, Location). */
  headers: Record<string, string>;
  body: Buffer;
}

export type IdempotencyClaim =
  /** This request holds the key; `token` must be presented to complete or release it. */
  | { outcome: 'claimed'; token: string }
  /** Another request holds it and has not finished. */
  | { outcome: 'in_flight' }
  /** A request with this key finished: its fingerprint and response. */
  | { outcome: 'completed'; fingerprint: string; response: StoredResponse };

export interface IdempotencyStore {
  /**
   * Claims the key in one atomic step. A row left in flight past `lockMs` (its request died with its
   * process) or past retention is taken over, so a crash never locks a key for good.
   */
  claim(scope: IdempotencyScope, options: { now?: number; lockMs: number }): Promise<IdempotencyClaim>;
  /** Stores the outcome while `token` still holds the key; kept until `expiresAt`. */
  complete(
    scope: IdempotencyScope,
    token: string,
    fingerprint: string,
    response: StoredResponse,
    expiresAt: number,
  ): Promise<boolean>;
  /** Forgets a claim whose request was refused before it started, so the key can be used again. */
  release(scope: IdempotencyScope, token: string): Promise<void>;
  /** Deletes keys past retention; returns how many. */
  prune(now?: number): Promise<number>;
}

/** A rate-limit policy: `quota` requests per `windowMs`, refilled smoothly (GCRA / token bucket). */
export interface RatePolicy {
  quota: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Milliseconds until the full quota is back. */
  resetMs: number;
  /** When refused: milliseconds until one request will be allowed. */
  retryAfterMs: number;
}

/** Shared by every process using the database, so the limit holds however many API processes run. */
export interface RateLimiter {
  /** Counts one request against `bucket` if allowed; a refused request is not counted. */
  consume(bucket: string, policy: RatePolicy, now?: number): Promise<RateDecision>;
  /** Whether one more request would be allowed, without counting it. */
  peek(bucket: string, policy: RatePolicy, now?: number): Promise<RateDecision>;
  /** Deletes buckets that are full again (they mean the same as no row); returns how many. */
  prune(now?: number): Promise<number>;
}

/**
 * The database without its job and batch stores: the other stores plus lifecycle. The job and batch
 * stores join it in `Database` (job-stores.ts), whose writes only the job services make, or as read
 * views in `ReadableDatabase` (job-reads.ts) for everyone else.
 */
export interface SharedStores {
  uploads: UploadStore;
  recipes: RecipeStore;
  webhooks: WebhookStore;
  accounts: AccountStore;
  idempotency: IdempotencyStore;
  rateLimits: RateLimiter;
  /** Runs pending forward-only migrations under a lock. */
  migrate(): Promise<void>;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  /**
   * Calls `listener` for every job change made by another process (PostgreSQL LISTEN, reconnecting
   * when the connection drops). Resolves once listening, with the function that stops it. Absent
   * where the database has no such channel (SQLite: other processes' changes are found by polling).
   */
  listenForChanges?(listener: (change: JobChangeNotice) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
