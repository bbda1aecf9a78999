// The transactional outbox for job events (docs/api.md §6): every job transition writes its event and
// the event's messages in its own transaction, so they commit or roll back with the change. This is
// the form SQLite runs inside its write lock; PostgreSQL writes the same rows from inside the
// transition's statement (postgres/outbox.ts). Either way the set of receivers is fixed by what was
// registered when the change happened (an endpoint added later does not get old events), and there
// is no second stage that could lag or crash between outbox and delivery queue.
import { type Kysely, sql } from 'kysely';
import { ulid } from 'ulid';
import type { JobStatus } from '../../model/job.js';
import type { JobChangeNotice } from '../../model/job-change.js';
import { eventBody, eventTypeFor, type JobEventType, subscribes } from '../../model/job-event.js';
import { type JobRow, toJob } from './job-rows.js';
import type { Tables, WebhookEventsTable } from './tables.js';

/** The change notice other processes get for each new status. */
export const noticeKinds: Record<JobStatus, JobChangeNotice['kind']> = {
  queued: 'created',
  processing: 'updated',
  succeeded: 'terminal',
  failed: 'terminal',
  canceled: 'canceled',
};

/** What an event's receivers are chosen by: an enabled endpoint of the job's account. */
export interface EndpointRef {
  id: string;
  events: string;
  kind: 'endpoint' | 'job_callback';
}

/**
 * The job's account's enabled endpoints as JSON, for the RETURNING clause of a statement that
 * changes the job on SQLite (`endpoints` below): the transition and its receivers in one statement
 * instead of a lookup after it, inside the same write lock.
 */
export const enabledEndpointsJson = sql<string>`(SELECT json_group_array(json_array(e.id, e.events, e.kind))
  FROM webhook_endpoints e WHERE e.account_id = jobs.account_id AND e.status = 'enabled')`;

/** `enabledEndpointsJson`'s answer as rows. */
export function endpoints(json: string): EndpointRef[] {
  return (JSON.parse(json) as Array<[string, string, EndpointRef['kind']]>).map(([id, events, kind]) => ({
    id,
    events,
    kind,
  }));
}

/**
 * Writes the event for `row`'s new status, with one message per enabled endpoint of the account
 * that subscribes to it; nothing when there is none, since an event nobody receives would only be
 * stored. The lookup is one probe of webhook_endpoints_account (an account has a handful of
 * endpoints at most), skipped when the caller's statement returned them (`enabledEndpointsJson`).
 * True when it queued messages.
 */
export async function writeJobEvent(
  conn: Kysely<Tables>,
  row: JobRow,
  now: number,
  known?: EndpointRef[],
): Promise<boolean> {
  const type = eventTypeFor(row.status);
  const endpoints =
    known ??
    (await conn
      .selectFrom('webhook_endpoints')
      .select(['id', 'events', 'kind'])
      .where('account_id', '=', row.account_id)
      .where('status', '=', 'enabled')
      .execute());
  const targets = endpoints.flatMap((e): Array<{ id: string; url: string | null }> => {
    if (e.kind === 'endpoint')
      return subscribes(JSON.parse(e.events) as string[], type) ? [{ id: e.id, url: null }] : [];
    // The job's own webhook_url gets its end through the account's job-callback endpoint.
    const url = row.webhook_url;
    return url && isCallbackEvent(type) ? [{ id: e.id, url }] : [];
  });
  if (targets.length === 0) return false;
  const { id: eventId } = await conn
    .insertInto('webhook_events')
    .values({
      account_id: row.account_id,
      job_id: row.id,
      type,
      body: eventBody(type, toJob(row), now),
      job_state: null,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await conn
    .insertInto('webhook_messages')
    .values(
      targets.map((target) => ({
        id: `msg_${ulid()}`,
        event_id: eventId,
        endpoint_id: target.id,
        account_id: row.account_id,
        status: 'pending' as const,
        attempts: 0,
        // The schedule's first delay is 0 (config enforces it): due at once.
        next_attempt_at: now,
        lease_token: null,
        lease_expires_at: null,
        created_at: now,
        completed_at: null,
        url: target.url,
      })),
    )
    .execute();
  return true;
}

/** The events a job's own webhook_url receives (docs/api.md §6): the job's end, however it ends. */
export function isCallbackEvent(type: JobEventType): boolean {
  return type === 'job.succeeded' || type === 'job.failed' || type === 'job.canceled';
}

/**
 * The bytes an event is signed and sent as: its body, or, for an event written with the job's state
 * (PostgreSQL's one-statement transitions), that state rendered exactly as `writeJobEvent` would
 * have rendered the row. Rendering is deterministic; the first delivery stores the result, so every
 * retry sends the same bytes even across a release.
 */
export function eventBodyOf(
  event: Pick<WebhookEventsTable, 'type' | 'body' | 'job_state' | 'created_at'>,
): Buffer {
  if (event.body) return event.body;
  if (event.job_state === null) throw new Error('a job event has neither body nor job state');
  return eventBody(event.type, toJob(JSON.parse(event.job_state) as JobRow), event.created_at);
}
