// A batch's state changes (docs/api.md §11): creating it with its jobs, made whole or not at all, and
// canceling its active jobs. Beside job-service.ts, the only writer of batch state; each of its jobs
// is created and canceled through the job service, as a single job is.
import { QuireError } from '../errors/quire-error.js';
import type { BatchRecord } from '../model/batch.js';
import { type JobRecord, terminalStatuses } from '../model/job.js';
import { ulid } from '../model/ulid.js';
import type { BatchStore } from '../store/job-stores.js';
import type { NewJob } from '../store/types.js';
import type { JobService, RequestFiles } from './job-service.js';

export interface BatchWithJobs {
  batch: BatchRecord;
  /** The batch's jobs that are not deleted, in creation order. */
  jobs: JobRecord[];
}

export class BatchService {
  constructor(
    private readonly batches: BatchStore,
    private readonly jobs: JobService,
  ) {}

  /**
   * The batch row, then its jobs one by one (each with its own event, as a single job's). If one fails
   * to be stored, the ones already made are removed and the rest of the upload discarded: a batch is
   * made whole or not at all, as far as the client can see. The request's named uploads are taken
   * first, all of them, before anything is stored.
   */
  async create(
    accountId: string,
    jobs: readonly NewJob[],
    files: RequestFiles = { takes: [], stored: [] },
  ): Promise<BatchWithJobs> {
    await this.jobs.takeUploads(accountId, files);
    const batch = await this.batches.create({
      id: `bat_${ulid()}`,
      accountId,
      tool: jobs[0]!.tool,
      jobCount: jobs.length,
      createdAt: Date.now(),
    });
    const created: string[] = [];
    try {
      for (const job of jobs) {
        await this.jobs.create({ ...job, batchId: batch.id });
        created.push(job.id);
      }
    } catch (error) {
      await Promise.allSettled(created.map((id) => this.jobs.remove(accountId, id)));
      const left = jobs.filter((job) => !created.includes(job.id));
      await Promise.allSettled(left.map((job) => this.jobs.discardUpload(job.inputs)));
      throw error;
    }
    return { batch, jobs: await this.batches.listJobs(accountId, batch.id) };
  }

  /** Each active job is canceled on its own; one that ends meanwhile keeps its outcome. */
  async cancel(accountId: string, id: string): Promise<BatchWithJobs> {
    const { batch, jobs } = await this.get(accountId, id);
    for (const job of jobs.filter((j) => !terminalStatuses.includes(j.status))) {
      await this.jobs.cancel(accountId, job.id).catch((error: unknown) => {
        if (!(error instanceof QuireError && error.code === 'job_state_conflict')) throw error;
      });
    }
    return { batch, jobs: await this.batches.listJobs(accountId, batch.id) };
  }

  /** The batch and its jobs; another account's or an unknown batch is `not_found`. */
  async get(accountId: string, id: string): Promise<BatchWithJobs> {
    const batch = await this.batches.get(accountId, id);
    if (!batch) throw new QuireError('not_found', 'No batch with this id.');
    return { batch, jobs: await this.batches.listJobs(accountId, id) };
  }
}
