// Store interfaces: operations the service needs, not generic query helpers. SQLite (the embedded
// default) and PostgreSQL (scale-out) implement them and run the same conformance suites.

import type { Account, ApiKeyRecord } from '../model/account.js';
import type { BatchRecord } from '../model/batch.js';
import type {
  InputFile,
  JobError,
  JobRecipe,
  JobRecord,
  JobResult,
  JobStatus,
  JobStep,
  JobTransferSecrets,
  JobTransfers,
} from '../model/job.js';
import type { JobChangeNotice } from '../model/job-change.js';
import type { JobQuotaStore } from './quota-types.js';
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

/**
 * Every state change writes its event to the webhook outbox in the same transaction (docs/api.md §6):
 * create → `job.created`, claimNext → `job.processing`, complete → `job.succeeded`, fail and the
 * `worker_lost` sweep → `job.failed`, cancel and delete of an active job → `job.canceled`, each
 * fanned out to the account's subscribed endpoints. A refused conditional write writes no event;
 * requeues (release, expired lease) are not events.
 */
export interface JobStore extends JobQuotaStore {
  create(job: NewJob): Promise<JobRecord>;
  /** Account-scoped read; another account's or a deleted job is undefined (→ 404). */
  get(accountId: string, id: string): Promise<JobRecord | undefined>;
  list(accountId: string, query: ListJobsQuery): Promise<{ jobs: JobRecord[]; hasMore: boolean }>;

  /**
   * Atomically takes the next job in fair order: among accounts with queued work and fewer
   * processing jobs than their plan allows, the one with the fewest running, then the one claimed
   * longest ago; then that account's oldest queued job. Status → processing, a fresh lease token, attempts + 1,
   * started_at set on the first claim. Undefined when nothing is queued. `expectWork` (a notice
   * announced a job, or the last claim left more) skips a cheap look before an SQLite claim takes
   * the write lock; the answer is the same either way.
   */
  claimNext(
    workerId: string,
    leaseMs: number,
    now?: number,
    limits?: ClaimLimits,
    expectWork?: boolean,
  ): Promise<ClaimedJob | undefined>;
  /** Extends the lease only while `token` still holds it; false means the lease is lost. */
  renewLease(id: string, token: string, leaseMs: number, now?: number): Promise<boolean>;
  /**
   * Gives a claimed job back to the queue (a worker shutting down in order): processing → queued,
   * lease cleared, no stall counted. False if the lease was already lost.
   */
  release(id: string, token: string): Promise<boolean>;
  /** Of the given (id, token) pairs, which leases are still held (one query per poll, for cancel). */
  heldLeases(leases: ReadonlyArray<{ id: string; token: string }>): Promise<Set<string>>;
  /** Raises progress (never lowers, never to 100) while the lease is held. */
  setProgress(id: string, token: string, percent: number): Promise<boolean>;
  /** Records the step the lease holder is running (jobs of several steps); false if the lease is lost. */
  setStep(id: string, token: string, step: number): Promise<boolean>;
  /**
   * processing → succeeded with the result: the job as it ended, or undefined (and nothing written)
   * if the lease is lost.
   */
  complete(
    id: string,
    token: string,
    result: JobResult,
    expiresAt: number,
    now?: number,
  ): Promise<JobRecord | undefined>;
  /** processing → failed; undefined (and nothing written) if the lease is lost. */
  fail(id: string, token: string, error: JobError, now?: number): Promise<JobRecord | undefined>;

  /** queued/processing → canceled at once (the worker notices its lost lease and kills the engine). */
  cancel(accountId: string, id: string, now?: number): Promise<CancelOutcome>;
  /** Hides the job (later reads are 404) and cancels it if active; returns it so blobs can be deleted. */
  delete(accountId: string, id: string, now?: number): Promise<JobRecord | undefined>;

  /**
   * Requeues jobs whose lease expired (stalls + 1) and fails those past `maxStalls` with
   * `worker_lost`. A job renewed or finished before the sweep is untouched.
   */
  sweepExpiredLeases(maxStalls: number, now?: number): Promise<SweepOutcome>;
  /** Terminal jobs whose inputs still exist in the blob store (inputs are deleted when a job ends). */
  listEndedWithInputs(limit: number): Promise<JobRecord[]>;
  markInputsDeleted(id: string): Promise<void>;
  /** Succeeded jobs past `expiresAt` and deleted jobs whose result still exists. */
  listExpiredResults(limit: number, now?: number): Promise<JobRecord[]>;
  markResultDeleted(id: string, now?: number): Promise<void>;
  /** Queue depth and running jobs, for metrics. */
  countByStatus(): Promise<Record<JobStatus, number>>;
  /**
   * Replaces the inputs once the worker has fetched the URL ones (their size and sniffed type), while
   * the lease is held; false if it is lost. A later attempt finds them fetched and does not refetch.
   */
  recordInputs(id: string, token: string, inputs: InputFile[]): Promise<boolean>;
}

/** Batches (docs/api.md §11): a name for a group of ordinary jobs; the jobs carry the batch id. */
export interface BatchStore {
  create(batch: BatchRecord): Promise<BatchRecord>;
  /** Account-scoped: another account's batch is undefined (→ 404). */
  get(accountId: string, id: string): Promise<BatchRecord | undefined>;
  /** The batch's jobs that are not deleted, in creation order. */
  listJobs(accountId: string, batchId: string): Promise<JobRecord[]>;
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

/** One database: the stores over it plus lifecycle. Open one per process and share it. */
export interface Database {
  uploads: UploadStore;
  jobs: JobStore;
  batches: BatchStore;
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
