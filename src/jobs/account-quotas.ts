// The plan's per-account quotas (docs/api.md §5): bytes stored (resumable uploads, jobs' inputs and
// results), jobs queued or processing, jobs created per window. Checked when an upload or a job is
// about to be accepted; the job runner's whole-job limits are job-budget.ts.
import type { Plan } from '../config/plans.js';
import { QuireError } from '../errors/quire-error.js';
import type { JobReads } from '../store/job-reads.js';
import type { UploadStore } from '../store/upload-types.js';

/**
 * A queue at its quota drains as the account's jobs finish: a few seconds is a fair first wait for a
 * client that honours Retry-After, and its next try asks again.
 */
const QUEUE_RETRY_AFTER_S = 5;

export class AccountQuotas {
  constructor(private readonly deps: { jobs: JobReads; uploads: UploadStore }) {}

  /**
   * Refuses when `adding` more bytes (0: whether the account is already at its quota) would take
   * the account past `max_stored_bytes`, and when `jobs` more jobs would pass the queue or the window.
   */
  async check(accountId: string, plan: Plan, adding: { bytes: number; jobs: number }): Promise<void> {
    const now = Date.now();
    const [usage, reserved] = await Promise.all([
      this.deps.jobs.accountUsage(accountId, now - plan.windowSeconds * 1000),
      this.deps.uploads.reservedBytes(accountId, now),
    ]);
    const stored = usage.storedBytes + reserved;
    if (
      stored + adding.bytes > plan.maxStoredBytes ||
      (adding.bytes === 0 && stored >= plan.maxStoredBytes)
    ) {
      throw new QuireError(
        'storage_quota_exceeded',
        `The account stores ${stored} bytes; the plan allows ${plan.maxStoredBytes}. Delete jobs or uploads, or wait for results to expire.`,
        {
          extras: {
            limit: 'stored_bytes',
            quota: plan.maxStoredBytes,
            stored_bytes: stored,
            plan: plan.name,
          },
          headers: { Connection: 'close' },
        },
      );
    }
    if (adding.jobs === 0) return;
    if (usage.activeJobs + adding.jobs > plan.maxQueuedJobs) {
      throw new QuireError(
        'queued_jobs_exceeded',
        `The account has ${usage.activeJobs} jobs queued or processing; the plan allows ${plan.maxQueuedJobs}.`,
        {
          extras: { limit: 'queued_jobs', quota: plan.maxQueuedJobs, plan: plan.name },
          headers: { 'Retry-After': String(QUEUE_RETRY_AFTER_S), Connection: 'close' },
        },
      );
    }
    if (usage.createdSince + adding.jobs > plan.jobsPerWindow) {
      throw new QuireError(
        'jobs_per_window_exceeded',
        `The account created ${usage.createdSince} jobs in the last ${plan.windowSeconds} s; the plan allows ${plan.jobsPerWindow}.`,
        {
          extras: {
            limit: 'jobs_per_window',
            quota: plan.jobsPerWindow,
            window_seconds: plan.windowSeconds,
            plan: plan.name,
          },
          headers: { 'Retry-After': String(plan.windowSeconds), Connection: 'close' },
        },
      );
    }
  }
}
