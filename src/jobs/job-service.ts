// The job's state changes, each in one place: the store write, the blobs that go with it and the
// in-process notice. Built once per process (jobs/services.ts) and handed to the routes, the workers
// and the sweeper, which call these instead of doing the steps: this file and batch-service.ts are
// the only writers of job state (`services-write-job-state` in .dependency-cruiser.cjs).
import { jobFolder } from '../blobs/keys.js';
import type { BlobStore } from '../blobs/types.js';
import { QuireError } from '../errors/quire-error.js';
import type { InputFile, JobError, JobRecord, JobResult } from '../model/job.js';
import type { JobEvents } from '../model/job-change.js';
import type { JobStore } from '../store/job-stores.js';
import type { ClaimedJob, ClaimLimits, NewJob, SweepOutcome } from '../store/types.js';
import type { WebhookStore } from '../store/webhook-types.js';
import type { Uploads, UploadTake } from '../uploads/uploads.js';
import { jobCallbackEndpoint } from '../webhooks/job-callback.js';

export interface JobServiceDeps {
  jobs: JobStore;
  blobs: BlobStore;
  events: JobEvents;
  /** Where a job with a `webhook_url` gets its account's callback secret before it is stored. */
  webhooks: WebhookStore;
  webhookSecretKey: Buffer;
  /** Where a job takes the finished resumable uploads its request named (`upload_id`). */
  uploads: Pick<Uploads, 'take'>;
}

/**
 * What a job request brought beside the job: the resumable uploads to take into the job's folder
 * and the files the request stored itself, which go if an upload cannot be taken.
 */
export interface RequestFiles {
  takes: readonly UploadTake[];
  stored: readonly InputFile[];
}

const NO_REQUEST_FILES: RequestFiles = { takes: [], stored: [] };

/** A lease as the lease keeper holds it. */
export interface HeldLease {
  id: string;
  token: string;
}

/**
 * Runs after a terminal write and before its notice, so what it records (metrics, the log line) is
 * there for everyone the notice wakes.
 */
export type OnRecorded = () => void;

export class JobService {
  constructor(private readonly deps: JobServiceDeps) {}

  /**
   * Stores the job whose request has been read: first its named uploads are taken into its folder
   * (the last refusal a request can meet), then a job with a `webhook_url` gets its account's
   * callback secret, so its first delivery is signed, then the row; on a failed write its files go.
   */
  async create(job: NewJob, files: RequestFiles = NO_REQUEST_FILES): Promise<JobRecord> {
    await this.takeUploads(job.accountId, files);
    const { jobs, blobs, events } = this.deps;
    const created = await this.callbackSecret(job)
      .then(() => jobs.create(job))
      .catch(async (error: unknown) => {
        // No job row, no sweep would ever find these files: delete them now. Only when the job is
        // known to be absent — a commit whose answer was lost may still have created it.
        const absent = await jobs.get(job.accountId, job.id).then(
          (found) => found === undefined,
          () => false,
        );
        if (absent) await blobs.deletePrefix(jobFolder(job.id)).catch(() => undefined);
        throw error;
      });
    events.emit({ jobId: job.id, kind: 'created' });
    return created;
  }

  /**
   * Takes a request's resumable uploads for its job or batch, just before it is stored; if one cannot
   * be taken (gone, taken meanwhile), the request's own stored files go and the others stay usable.
   */
  async takeUploads(accountId: string, { takes, stored }: RequestFiles): Promise<void> {
    if (takes.length === 0) return;
    try {
      await this.deps.uploads.take(accountId, takes);
    } catch (error) {
      await this.discardUpload(stored);
      throw error;
    }
  }

  /** Files of an upload that did not become a job (a replayed or refused request). */
  async discardUpload(inputs: readonly InputFile[]): Promise<void> {
    await Promise.allSettled(inputs.map((f) => this.deps.blobs.delete(f.blobKey)));
  }

  /** queued/processing → canceled; the running engine stops when its lease is found lost. */
  async cancel(accountId: string, id: string): Promise<JobRecord> {
    const outcome = await this.deps.jobs.cancel(accountId, id);
    if (outcome.outcome === 'not_found') throw notFound();
    if (outcome.outcome === 'terminal') {
      throw new QuireError('job_state_conflict', `The job is already ${outcome.job.status}.`, {
        extras: { job_status: outcome.job.status },
      });
    }
    this.deps.events.emit({ jobId: outcome.job.id, kind: 'canceled' });
    // No worker holds a queued job: its inputs and URLs go now, as a finished job's do. A running
    // one's go once its worker has let go (the sweeper's purge).
    if (!outcome.wasProcessing) await this.dropInputs(outcome.job);
    return outcome.job;
  }

  /** Hides the job (canceling it if active) and deletes its files now. */
  async remove(accountId: string, id: string): Promise<void> {
    const { jobs, blobs, events } = this.deps;
    const job = await jobs.delete(accountId, id);
    if (!job) throw notFound();
    events.emit({ jobId: job.id, kind: 'canceled' });
    // Delete now rather than at the next sweep; the sweeper retries whatever fails here.
    await blobs.deletePrefix(jobFolder(job.id));
    await jobs.markInputsDeleted(job.id);
    if (job.result) await jobs.markResultDeleted(job.id);
  }

  /** The next job for this worker in fair order, or undefined when nothing is queued. */
  async claim(
    workerId: string,
    leaseMs: number,
    limits: ClaimLimits,
    expectWork = false,
  ): Promise<ClaimedJob | undefined> {
    const claim = await this.deps.jobs.claimNext(workerId, leaseMs, Date.now(), limits, expectWork);
    if (claim) this.deps.events.emit({ jobId: claim.job.id, kind: 'updated' });
    return claim;
  }

  /** Gives a claimed job back to the queue; false when the lease was already lost. */
  release(claim: ClaimedJob): Promise<boolean> {
    return this.deps.jobs.release(claim.job.id, claim.leaseToken).catch(() => false);
  }

  /** Extends the claim's lease while its token still holds it; false means the lease is lost. */
  renewLease(id: string, token: string, leaseMs: number): Promise<boolean> {
    return this.deps.jobs.renewLease(id, token, leaseMs);
  }

  /** Of these leases, the ids whose lease is still held (a cancel or a sweep took the others). */
  heldLeases(leases: readonly HeldLease[]): Promise<Set<string>> {
    return this.deps.jobs.heldLeases(leases);
  }

  /** Raises the running job's progress while the lease holds; false when nothing was written. */
  async setProgress(claim: ClaimedJob, percent: number): Promise<boolean> {
    const held = await this.deps.jobs.setProgress(claim.job.id, claim.leaseToken, percent);
    if (held) this.deps.events.emit({ jobId: claim.job.id, kind: 'updated' });
    return held;
  }

  /** Records the step a job of several steps is running, while the lease holds. */
  async setStep(claim: ClaimedJob, index: number): Promise<boolean> {
    const held = await this.deps.jobs.setStep(claim.job.id, claim.leaseToken, index);
    if (held) this.deps.events.emit({ jobId: claim.job.id, kind: 'updated' });
    return held;
  }

  /** Records the fetched URL inputs (size, sniffed type) while the lease holds; false when lost. */
  recordInputs(claim: ClaimedJob, inputs: InputFile[]): Promise<boolean> {
    return this.deps.jobs.recordInputs(claim.job.id, claim.leaseToken, inputs);
  }

  /**
   * processing → succeeded, while the claim's lease still holds; then the inputs go. False when the
   * lease was lost: the job belongs to someone else now, and this attempt's result is deleted.
   */
  async complete(
    claim: ClaimedJob,
    result: JobResult,
    retentionMs: number,
    onRecorded: OnRecorded,
  ): Promise<boolean> {
    const { job, leaseToken } = claim;
    // One clock reading, so expires_at − completed_at is exactly the retention period.
    const now = Date.now();
    const ended = await this.deps.jobs.complete(job.id, leaseToken, result, now + retentionMs, now);
    if (!ended) {
      await this.deps.blobs.delete(result.blobKey);
      return false;
    }
    await this.ended(job, ended, onRecorded);
    return true;
  }

  /** processing → failed, while the claim's lease still holds; then the inputs go. */
  async fail(claim: ClaimedJob, error: JobError, onRecorded: OnRecorded): Promise<boolean> {
    const ended = await this.deps.jobs.fail(claim.job.id, claim.leaseToken, error);
    if (!ended) return false;
    await this.ended(claim.job, ended, onRecorded);
    return true;
  }

  /** Drops a recorded result the client asked not to keep (`export.keep_result: false`). */
  async dropUnkeptResult(claim: ClaimedJob, result: JobResult): Promise<void> {
    if (claim.job.transfers.export?.keepResult !== false) return;
    await this.deps.blobs.delete(result.blobKey);
    await this.deps.jobs.markResultDeleted(claim.job.id);
  }

  /** Expired leases: requeued jobs wake idle workers here, failed ones (`worker_lost`) their waiters. */
  async sweepExpiredLeases(maxStalls: number): Promise<SweepOutcome> {
    const outcome = await this.deps.jobs.sweepExpiredLeases(maxStalls);
    for (const id of outcome.requeued) this.deps.events.emit({ jobId: id, kind: 'created' });
    for (const id of outcome.failed) this.deps.events.emit({ jobId: id, kind: 'terminal' });
    return outcome;
  }

  /** Up to `batch` each: inputs of ended jobs, results past retention (or of deleted jobs). */
  async purgeFiles(batch: number): Promise<void> {
    const { jobs, blobs } = this.deps;
    for (const job of await jobs.listEndedWithInputs(batch)) {
      // Without a result to keep, the job's whole folder goes: inputs and anything an attempt that
      // lost its lease uploaded (a worker killed between its upload and its write leaves one).
      if (job.result) await Promise.all(job.inputs.map((f) => blobs.delete(f.blobKey)));
      else await blobs.deletePrefix(jobFolder(job.id));
      await jobs.markInputsDeleted(job.id);
    }
    for (const job of await jobs.listExpiredResults(batch)) {
      await blobs.deletePrefix(jobFolder(job.id));
      await jobs.markResultDeleted(job.id);
    }
  }

  /**
   * Up to `batch` records of jobs that ended before `before`, with whatever files they still have
   * (docs/api.md §5): the files first, so a failed delete leaves the row for the next sweep to retry.
   */
  async purgeRecords(before: number, batch: number): Promise<number> {
    const { jobs, blobs } = this.deps;
    const expired = await jobs.listExpiredRecords(before, batch);
    for (const job of expired) await blobs.deletePrefix(jobFolder(job.id));
    return jobs.deleteRecords(expired.map((job) => job.id));
  }

  private async callbackSecret(job: NewJob): Promise<void> {
    if (!job.webhookUrl) return;
    await jobCallbackEndpoint(this.deps.webhooks, this.deps.webhookSecretKey, job.accountId);
  }

  /** `job` as claimed (its inputs to delete), `ended` as written (for those the notice wakes). */
  private async ended(job: JobRecord, ended: JobRecord, onRecorded: OnRecorded): Promise<void> {
    onRecorded();
    this.deps.events.emit({ jobId: job.id, kind: 'terminal', job: ended });
    // The waiters it woke answer first (POST /run sends its result from there); the inputs' deletes
    // and their write run in the event loop's next turn.
    await new Promise((resolve) => setImmediate(resolve));
    await this.dropInputs(job);
  }

  /** Inputs go as soon as the job ends (docs/api.md §2); the sweeper retries whatever fails here. */
  private async dropInputs(job: JobRecord): Promise<void> {
    try {
      await Promise.all(job.inputs.map((f) => this.deps.blobs.delete(f.blobKey)));
      await this.deps.jobs.markInputsDeleted(job.id);
    } catch {
      // Left for the sweeper.
    }
  }
}

function notFound(): QuireError {
  return new QuireError('not_found', 'No job with this id.');
}
