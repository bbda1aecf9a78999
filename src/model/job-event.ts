// Job events (docs/api.md §6): the types a job's state changes announce, the outbox record, and the
// event body `{"type", "timestamp", "data": <the job object>}`, serialised once when the event is
// written, so every delivery and retry signs and sends the same bytes.
import type { JobRecord, JobStatus } from './job.js';
import { jobView, rfc3339 } from './job-view.js';

/** Receivers must ignore types they do not know; we only add new ones. */
export const jobEventTypes = [
  'job.created',
  'job.processing',
  'job.succeeded',
  'job.failed',
  'job.canceled',
] as const;
export type JobEventType = (typeof jobEventTypes)[number];

/** An outbox row: written in the same transaction as the job state change it describes. */
export interface JobEventRecord {
  type: JobEventType;
  jobId: string;
  accountId: string;
  /** The exact payload bytes every delivery of this event sends and signs. */
  body: Buffer;
  createdAt: number;
}

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
