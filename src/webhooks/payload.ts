// The webhook event body (docs/api.md §6): `{"type", "timestamp", "data": <the job object>}`, serialised
// once when the event is written, so every delivery and retry signs and sends the same bytes.
import { jobView, rfc3339 } from '../jobs/job-view.js';
import type { JobEventType, JobRecord, JobStatus } from '../store/types.js';

/** The event a job's new status announces; `queued` is only announced by `job.created`. */
export function eventTypeFor(status: JobStatus): JobEventType {
  switch (status) {
    case 'queued':
      return 'job.created';
    case 'processing':
      return 'job.processing';
    case 'succeeded':
      return 'job.succeeded';
    case 'failed':
      return 'job.failed';
    case 'canceled':
      return 'job.canceled';
  }
}

export function eventBody(type: JobEventType, job: JobRecord, at: number): Buffer {
  return Buffer.from(JSON.stringify({ type, timestamp: rfc3339(at), data: jobView(job) }), 'utf8');
}

/** Whether an endpoint subscribed to `events` receives `type` (`*` means every type, new ones too). */
export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}
