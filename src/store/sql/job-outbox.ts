// The transactional outbox for job events (contract §6): called by every job transition with the
// transaction's own connection, so the event, its deliveries and (PostgreSQL) the change notice
// commit or roll back with the change.
import type { Kysely } from 'kysely';
import { ulid } from 'ulid';
import { eventBody, eventTypeFor, subscribes } from '../../webhooks/payload.js';
import type { JobChangeNotice, JobStatus } from '../types.js';
import type { SqlDialect } from './dialect.js';
import { type JobRow, type Tables, toJob } from './rows.js';

/** The change notice other processes get for each new status. */
const noticeKinds: Record<JobStatus, JobChangeNotice['kind']> = {
  queued: 'created',
  processing: 'updated',
  succeeded: 'terminal',
  failed: 'terminal',
  canceled: 'canceled',
};

/**
 * Writes the event for `row`'s new status and fans it out to the account's enabled, subscribed
 * endpoints right here rather than in a later dispatcher pass: the set of receivers is then fixed by
 * what was registered when the change happened (an endpoint added later does not get old events),
 * there is no second stage that could lag or crash between outbox and queue, and the cost is one
 * index probe on webhook_endpoints_account (an account has a handful of endpoints at most).
 */
export async function appendJobEvent(
  conn: Kysely<Tables>,
  dialect: SqlDialect,
  row: JobRow,
  now: number,
): Promise<void> {
  const type = eventTypeFor(row.status);
  const { eventId, endpoints } = await dialect.insertJobEvent(
    conn,
    {
      account_id: row.account_id,
      job_id: row.id,
      type,
      body: eventBody(type, toJob(row), now),
      created_at: now,
    },
    { jobId: row.id, kind: noticeKinds[row.status] },
  );
  const targets = endpoints.filter((e) => subscribes(JSON.parse(e.events) as string[], type));
  if (targets.length === 0) return;
  await conn
    .insertInto('webhook_messages')
    .values(
      targets.map((endpoint) => ({
        id: `msg_${ulid()}`,
        event_id: eventId,
        endpoint_id: endpoint.id,
        account_id: row.account_id,
        status: 'pending' as const,
        attempts: 0,
        // The schedule's first delay is 0 (config enforces it): due at once.
        next_attempt_at: now,
        lease_token: null,
        lease_expires_at: null,
        created_at: now,
        completed_at: null,
      })),
    )
    .execute();
}
