// The webhook delivery queue (SQLite and PostgreSQL): due messages are claimed under a lease like jobs, and each
// attempt is recorded with the message's next state and the endpoint's health in one transaction.
import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { JobEventType } from '../../model/job-event.js';
import type { WebhookAttempt, WebhookMessage, WebhookMessageStatus } from '../../model/webhook.js';
import type { AttemptRecord, DeliveryClaim } from '../webhook-types.js';
import type { SqlDialect } from './dialect.js';
import { eventBodyOf } from './job-outbox.js';
import type { Tables, WebhookAttemptsTable } from './tables.js';

/** The message columns every read joins from its event: the job and the event type. */
export const messageColumns = [
  'm.id',
  'm.endpoint_id',
  'm.account_id',
  'e.job_id',
  'e.type',
  'm.status',
  'm.attempts',
  'm.next_attempt_at',
  'm.created_at',
  'm.completed_at',
] as const;

interface MessageRow {
  id: string;
  endpoint_id: string;
  account_id: string;
  job_id: string;
  type: JobEventType;
  status: WebhookMessageStatus;
  attempts: number;
  next_attempt_at: number | null;
  created_at: number;
  completed_at: number | null;
}

/**
 * The next due message of an enabled endpoint. The literal 'pending' lets SQLite use the partial
 * webhook_messages_due index, so an idle poll is one probe whatever the history holds.
 */
function nextDue(db: Kysely<Tables>, now: number) {
  return db
    .selectFrom('webhook_messages as m')
    .innerJoin('webhook_endpoints as w', 'w.id', 'm.endpoint_id')
    .select('m.id')
    .where('m.status', '=', sql.lit('pending'))
    .where('m.next_attempt_at', '<=', now)
    .where('w.status', '=', 'enabled')
    .orderBy('m.next_attempt_at')
    .limit(1);
}

export async function claimDelivery(
  db: Kysely<Tables>,
  dialect: SqlDialect,
  leaseMs: number,
  now: number,
): Promise<DeliveryClaim | undefined> {
  // Idle dispatchers poll: a plain read answers "nothing due" without taking the write lock.
  if (!(await nextDue(db, now).executeTakeFirst())) return undefined;
  return dialect.transaction(db, async (conn) => {
    // On PostgreSQL, a message another dispatcher is claiming right now is passed over.
    const due = await dialect.lockRows(nextDue(conn, now), { skipLocked: true, of: 'm' }).executeTakeFirst();
    if (!due) return undefined;
    const leaseToken = randomUUID();
    // The lease is the next due time: a dispatcher that dies mid-attempt leaves a message that simply
    // falls due again when its lease runs out, so no separate sweep is needed for deliveries. A new
    // claim replaces the token, which refuses the old holder's late record.
    await conn
      .updateTable('webhook_messages')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        lease_token: leaseToken,
        lease_expires_at: now + leaseMs,
        next_attempt_at: now + leaseMs,
      }))
      .where('id', '=', due.id)
      .execute();
    const row = await conn
      .selectFrom('webhook_messages as m')
      .innerJoin('webhook_events as e', 'e.id', 'm.event_id')
      .innerJoin('webhook_endpoints as w', 'w.id', 'm.endpoint_id')
      .select([
        ...messageColumns,
        'e.id as event_id',
        'e.body',
        'e.job_state',
        'e.created_at as event_created_at',
        // A job's own webhook_url goes to that URL, signed with the job-callback endpoint's secret.
        (eb) => eb.fn.coalesce('m.url', 'w.url').as('url'),
        'w.secret',
        'w.previous_secret',
        'w.previous_secret_expires_at',
      ])
      .where('m.id', '=', due.id)
      .executeTakeFirstOrThrow();
    const body = row.body ?? (await storeRenderedBody(conn, row.event_id, row));
    return {
      message: toMessage(row),
      leaseToken,
      url: row.url,
      secretEncrypted: row.secret,
      previousSecretEncrypted: row.previous_secret,
      previousSecretExpiresAt: row.previous_secret_expires_at,
      body,
    };
  });
}

/**
 * Renders an event written with the job's state and stores the body in its place. Another endpoint's
 * dispatcher may be doing the same: the first stored body wins and is what both send.
 */
async function storeRenderedBody(
  conn: Kysely<Tables>,
  eventId: number,
  event: { type: JobEventType; job_state: string | null; event_created_at: number },
): Promise<Buffer> {
  const rendered = eventBodyOf({ ...event, body: null, created_at: event.event_created_at });
  const stored = await conn
    .updateTable('webhook_events')
    .set((eb) => ({ body: eb.fn.coalesce('body', sql.val(rendered)), job_state: null }))
    .where('id', '=', eventId)
    .returning('body')
    .executeTakeFirstOrThrow();
  return stored.body ?? rendered;
}

export async function recordAttempt(
  db: Kysely<Tables>,
  dialect: SqlDialect,
  messageId: string,
  leaseToken: string,
  record: AttemptRecord,
): Promise<{ recorded: boolean; disabled: 'gone' | 'failing' | null; endpointId?: string }> {
  const outcome = await recordInTransaction(db, dialect, messageId, leaseToken, record);
  // A delivered (or given up) job callback's URL was just overwritten: out of the WAL with it.
  if (outcome.endedCallback) await dialect.forgetOverwritten(db);
  return outcome;
}

function recordInTransaction(
  db: Kysely<Tables>,
  dialect: SqlDialect,
  messageId: string,
  leaseToken: string,
  record: AttemptRecord,
): Promise<{
  recorded: boolean;
  disabled: 'gone' | 'failing' | null;
  endpointId?: string;
  endedCallback?: boolean;
}> {
  const at = record.attempt.attemptedAt;
  const cleared = { lease_token: null, lease_expires_at: null };
  return dialect.transaction(db, async (conn) => {
    const { next } = record;
    const message = await conn
      .updateTable('webhook_messages')
      .set(
        next.kind === 'retry'
          ? { next_attempt_at: next.at, ...cleared }
          : {
              status: next.kind,
              completed_at: at,
              next_attempt_at: null,
              // A job's webhook_url (its query may hold a token) is kept only while it is still to
              // be sent; '' keeps the message marked as a job callback (docs/api.md §6).
              url: sql<string | null>`CASE WHEN url IS NULL THEN NULL ELSE '' END`,
              ...cleared,
            },
      )
      .where('id', '=', messageId)
      .where('lease_token', '=', leaseToken)
      .where('status', '=', 'pending')
      .returning(['endpoint_id', 'url'])
      .executeTakeFirst();
    if (!message) return { recorded: false, disabled: null };
    const endpointId = message.endpoint_id;
    await conn
      .insertInto('webhook_attempts')
      .values({
        message_id: messageId,
        attempted_at: at,
        status_code: record.attempt.statusCode,
        latency_ms: Math.round(record.attempt.latencyMs),
        error_class: record.attempt.errorClass,
        response_excerpt: record.attempt.responseExcerpt,
      })
      .execute();
    // One job's bad webhook_url says nothing about the account's others: the job-callback endpoint
    // keeps no health and is never disabled.
    if (message.url !== null)
      return { recorded: true, disabled: null, endpointId, endedCallback: next.kind !== 'retry' };
    if (next.kind === 'succeeded') {
      await conn
        .updateTable('webhook_endpoints')
        .set({ failing_since: null })
        .where('id', '=', endpointId)
        .execute();
      return { recorded: true, disabled: null, endpointId };
    }
    // "Failing continuously" is measured from the first failure after the last success.
    const endpoint = await conn
      .updateTable('webhook_endpoints')
      .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', sql.val(at)) }))
      .where('id', '=', endpointId)
      .returning(['status', 'failing_since'])
      .executeTakeFirstOrThrow();
    if (endpoint.status !== 'enabled') return { recorded: true, disabled: null, endpointId };
    const reason = record.gone
      ? 'gone'
      : (endpoint.failing_since ?? at) <= record.disableIfFailingSince
        ? 'failing'
        : null;
    if (reason) await disableEndpoint(conn, endpointId, reason, at);
    return { recorded: true, disabled: reason, endpointId };
  });
}

/** Disables an endpoint and fails what still waits for it: nothing is sent to a disabled endpoint. */
export async function disableEndpoint(
  conn: Kysely<Tables>,
  endpointId: string,
  reason: string,
  now: number,
): Promise<void> {
  await conn
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, updated_at: now })
    .where('id', '=', endpointId)
    .execute();
  await conn
    .updateTable('webhook_messages')
    .set({
      status: 'failed',
      completed_at: now,
      next_attempt_at: null,
      lease_token: null,
      lease_expires_at: null,
    })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

export function toMessage(row: MessageRow): WebhookMessage {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    accountId: row.account_id,
    jobId: row.job_id,
    eventType: row.type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

export function toAttempt(row: Selectable<WebhookAttemptsTable>): WebhookAttempt {
  return {
    attemptedAt: row.attempted_at,
    statusCode: row.status_code,
    latencyMs: row.latency_ms,
    errorClass: row.error_class,
    responseExcerpt: row.response_excerpt,
  };
}
