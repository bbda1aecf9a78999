// What may be read of job and batch state without being able to write it: the read halves of the job
// and batch stores, and the database as the HTTP layer and the worker's helpers see it. The writes
// are in job-stores.ts, which only the job services import (`npm run arch`, docs/architecture.md).
import type { BatchRecord } from '../model/batch.js';
import type { JobRecord, JobStatus } from '../model/job.js';
import type { JobQuotaStore } from './quota-types.js';
import type { ListJobsQuery, SharedStores } from './types.js';

export interface JobReads extends Pick<JobQuotaStore, 'accountUsage'> {
  /** Account-scoped read; another account's or a deleted job is undefined (→ 404). */
  get(accountId: string, id: string): Promise<JobRecord | undefined>;
  list(accountId: string, query: ListJobsQuery): Promise<{ jobs: JobRecord[]; hasMore: boolean }>;
  /** Queue depth and running jobs, for metrics. */
  countByStatus(): Promise<Record<JobStatus, number>>;
}

export interface BatchReads {
  /** Account-scoped: another account's batch is undefined (→ 404). */
  get(accountId: string, id: string): Promise<BatchRecord | undefined>;
  /** The batch's jobs that are not deleted, in creation order. */
  listJobs(accountId: string, batchId: string): Promise<JobRecord[]>;
}

/** The database with its job and batch stores read-only: what routes are handed (http/deps.ts). */
export interface ReadableDatabase extends SharedStores {
  jobs: JobReads;
  batches: BatchReads;
}
