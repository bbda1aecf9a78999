// A batch (docs/api.md §11): one request's files, each an ordinary job of the account under one id,
// and the batch's public view — counts by status and overall progress, computed from its jobs.
import { type JobRecord, type JobStatus, jobStatuses, terminalStatuses } from './job.js';
import { jobView, rfc3339 } from './job-view.js';

export interface BatchRecord {
  id: string; // bat_<ulid>
  accountId: string;
  tool: string;
  /** Jobs the batch was created with; deleted jobs drop out of the counts, not out of this. */
  jobCount: number;
  createdAt: number;
}

/**
 * `status`: `processing` while any job is active, else `completed`. Progress is the mean of the
 * jobs' progress, an ended job counting as 100 whatever its outcome (it will not move again).
 */
export function batchView(batch: BatchRecord, jobs: readonly JobRecord[], withJobs = true) {
  const counts = Object.fromEntries(jobStatuses.map((s) => [s, 0])) as Record<JobStatus, number>;
  let progress = 0;
  for (const job of jobs) {
    counts[job.status] += 1;
    progress += terminalStatuses.includes(job.status) ? 100 : Math.min(job.progress, 99);
  }
  const active = counts.queued + counts.processing;
  const self = `/api/v1/batches/${batch.id}`;
  return {
    id: batch.id,
    object: 'batch',
    tool: batch.tool,
    status: active > 0 ? 'processing' : 'completed',
    total: jobs.length,
    counts,
    progress: jobs.length === 0 ? 100 : Math.floor(progress / jobs.length),
    created_at: rfc3339(batch.createdAt),
    links: { self, download: `${self}/download` },
    ...(withJobs ? { jobs: jobs.map(jobView) } : {}),
  };
}
