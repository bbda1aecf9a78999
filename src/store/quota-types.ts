// The job store's operations for the plan's account quotas and for the expiry of job records
// (docs/api.md §5), apart from the job lifecycle in types.ts.
import type { JobRecord } from '../model/job.js';

/** What an account holds against its plan's quotas. */
export interface AccountUsage {
  /** Bytes of its jobs' inputs not yet deleted and of results still kept. */
  storedBytes: number;
  /** Jobs queued or processing. */
  activeJobs: number;
  /** Jobs created at or after the `since` asked for, deleted ones included. */
  createdSince: number;
}

export interface JobQuotaStore {
  accountUsage(accountId: string, since: number): Promise<AccountUsage>;
  /** Ended jobs (deleted ones included) that ended before `before`, oldest first. */
  listExpiredRecords(before: number, limit: number): Promise<JobRecord[]>;
  /** Deletes the rows of these jobs when they are ended; returns how many went. */
  deleteRecords(ids: readonly string[]): Promise<number>;
}
