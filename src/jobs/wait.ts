// Long-poll support: resolve when a job reaches a terminal state or the wait runs out (docs/api.md §2).
import type { JobRecord } from '../model/job.js';
import { terminalStatuses } from '../model/job.js';
import type { JobChangeNotice, JobEvents } from '../model/job-change.js';
import type { JobReads } from '../store/job-reads.js';

/** Re-read interval when the change happens in another process (no in-process event). */
const POLL_MS = 250;

export async function waitForTerminal(
  jobs: JobReads,
  events: JobEvents,
  accountId: string,
  id: string,
  waitMs: number,
  signal?: AbortSignal,
): Promise<JobRecord | undefined> {
  const deadline = Date.now() + waitMs;
  let job = await jobs.get(accountId, id);
  while (job && !terminalStatuses.includes(job.status) && Date.now() < deadline && !signal?.aborted) {
    const change = await nextChange(events, id, Math.min(POLL_MS, deadline - Date.now()), signal, ENDING);
    // The worker that ended the job in this process hands over the row it wrote: no read. The id
    // was found under this account above, and ids are never reused.
    job = change?.job ?? (await jobs.get(accountId, id));
  }
  return job;
}

/**
 * The notices that can end a job. A long-poll only re-reads the job on these: a claim or a progress
 * write would cost a read that finds the job still running (the poll still catches every change).
 */
const ENDING: ReadonlySet<JobChangeNotice['kind']> = new Set(['terminal', 'canceled']);

/**
 * Resolves on the job's next in-process change (of one of `kinds`, when given) with that change,
 * or with undefined after `ms` or on abort — whichever is first.
 */
export function nextChange(
  events: JobEvents,
  id: string,
  ms: number,
  signal?: AbortSignal,
  kinds?: ReadonlySet<JobChangeNotice['kind']>,
): Promise<JobChangeNotice | undefined> {
  return new Promise((resolve) => {
    const done = (change?: JobChangeNotice) => {
      clearTimeout(timer);
      off();
      signal?.removeEventListener('abort', aborted);
      resolve(change);
    };
    const aborted = () => done();
    const timer = setTimeout(done, Math.max(0, ms));
    const off = events.onJob(id, (change) => {
      if (!kinds || kinds.has(change.kind)) done(change);
    });
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
