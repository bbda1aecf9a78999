// The job and batch stores with their writes, and the database that holds them. Only the job services
// (src/jobs/job-service.ts, batch-service.ts) import this module from jobs/ and http/: everyone else
// there reads through job-reads.ts (`services-write-job-state` in .dependency-cruiser.cjs).
import type { BatchRecord } from '../model/batch.js';
import type { InputFile, JobError, JobRecord, JobResult } from '../model/job.js';
import type { BatchReads, JobReads } from './job-reads.js';
import type { JobQuotaStore } from './quota-types.js';
import type { CancelOutcome, ClaimedJob, ClaimLimits, NewJob, SharedStores, SweepOutcome } from './types.js';

/**
 * Every state change writes its event to the webhook outbox in the same transaction (docs/api.md §6):
 * create → `job.created`, claimNext → `job.processing`, complete → `job.succeeded`, fail and the
 * `worker_lost` sweep → `job.failed`, cancel and delete of an active job → `job.canceled`, each
 * fanned out to the account's subscribed endpoints. A refused conditional write writes no event;
 * requeues (release, expired lease) are not events.
 */
export interface JobStore extends JobReads, JobQuotaStore {
  create(job: NewJob): Promise<JobRecord>;

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
  /**
   * Replaces the inputs once the worker has fetched the URL ones (their size and sniffed type), while
   * the lease is held; false if it is lost. A later attempt finds them fetched and does not refetch.
   */
  recordInputs(id: string, token: string, inputs: InputFile[]): Promise<boolean>;
}

/** Batches (docs/api.md §11): a name for a group of ordinary jobs; the jobs carry the batch id. */
export interface BatchStore extends BatchReads {
  create(batch: BatchRecord): Promise<BatchRecord>;
}

/** One database: the stores over it plus lifecycle. Open one per process and share it. */
export interface Database extends SharedStores {
  jobs: JobStore;
  batches: BatchStore;
}
