// The job-event outbox on PostgreSQL (docs/api.md §6) as the tail of a transition's own statement: its
// event, the event's messages and the change notice are written by CTEs after the change, so they
// commit with it, and a claim or a completion stays one round trip (SQLite's outbox: sql/job-outbox.ts).
import { type Expression, type Kysely, type RawBuilder, sql } from 'kysely';
import type { JobChangeNotice } from '../../model/job-change.js';
import type { JobEventType } from '../../model/job-event.js';
import { eventBody, eventTypeFor } from '../../model/job-event.js';
import { REDACTED } from '../../model/redact.js';
import { isCallbackEvent, noticeKinds } from '../sql/job-outbox.js';
import { type JobRow, toJob } from '../sql/job-rows.js';
import type { Tables } from '../sql/tables.js';
import { notifySql } from './notices.js';

export interface OutboxTail {
  /** The CTE of changed job rows (every column of jobs; `id` and `account_id` when `body` is given). */
  source: string;
  type: JobEventType;
  now: number;
  origin: string;
  notice: JobChangeNotice['kind'];
  /**
   * The event's body, when the caller has the job to render it; otherwise the event stores the source
   * row's state and the body is rendered from it when first sent (sql/job-outbox.ts `eventBodyOf`).
   */
  body?: Buffer;
}

/**
 * The CTEs `targets`, `written` and `notice`, to follow a statement's own CTEs after a comma. The
 * event is written only when an enabled endpoint of the account subscribes to its type: an event
 * nobody receives would only be stored. It is written by quire_job_event (postgres/migrations/
 * 005-job-event-writer.ts), called only then, so a transition nobody receives sets up no INSERT.
 * `written` is MATERIALIZED so the function runs once per changed row. The statement must read
 * `notice` and `written` (see `noticesRead`): PostgreSQL skips a plain SELECT in WITH that nothing
 * references.
 */
export function outboxTail(tail: OutboxTail): RawBuilder<unknown> {
  const source = sql.table(tail.source);
  const content = tail.body
    ? sql`${tail.body}::bytea, NULL::text`
    : sql`NULL::bytea, ${jobState(sql.ref('s'))}`;
  return sql`
    targets AS (
      SELECT s.id AS job_id, w.id AS endpoint_id, NULL::text AS url
      FROM ${source} s JOIN webhook_endpoints w ON w.account_id = s.account_id AND w.status = 'enabled'
      WHERE w.events::jsonb ?| ARRAY['*', ${tail.type}::text]
      ${isCallbackEvent(tail.type) ? callbackTargets(source) : sql``}
    ),
    written AS MATERIALIZED (
      SELECT s.id, CASE WHEN r.targets IS NULL THEN 0 ELSE quire_job_event(s.account_id, s.id,
          ${tail.type}::text, ${content}, ${tail.now}::bigint, r.targets) END AS queued
      FROM ${source} s CROSS JOIN LATERAL (
        SELECT jsonb_agg(jsonb_build_object('endpoint', t.endpoint_id, 'url', t.url)) AS targets
        FROM targets t WHERE t.job_id = s.id) r
    ),
    notice AS (
      SELECT ${notifySql(tail.origin, sql.ref('w.id'), tail.notice, sql<boolean>`w.queued > 0`)}
      FROM written w
    )`;
}

/**
 * The job's own webhook_url through the account's job-callback endpoint (sql/webhook-callbacks.ts).
 * The URL is read from the jobs table, not the source: a source may carry only id and account, and
 * the statement's snapshot holds the URL, which never changes while the job is active.
 */
function callbackTargets(source: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`UNION ALL
      SELECT s.id, w.id, j.webhook_url
      FROM ${source} s JOIN jobs j ON j.id = s.id
      JOIN webhook_endpoints w ON w.account_id = s.account_id AND w.kind = 'job_callback' AND w.status = 'enabled'
      WHERE j.webhook_url IS NOT NULL`;
}

/**
 * The select-list items that make the statement run `outboxTail`'s notice, and say (`queued`, a
 * count of messages) whether it queued webhook messages.
 */
export const noticesRead = sql`(SELECT count(*) FROM notice) AS notices,
  (SELECT coalesce(sum(queued), 0) FROM written) AS queued`;

/**
 * A job row's options with every option named in its secret_options replaced by the redaction
 * marker, key order kept (json, not jsonb): `scrubSecretOptions` (model/redact.ts) in SQL, for
 * statements that end a job or snapshot it without the row passing through TypeScript.
 */
export function scrubbedOptions(options: Expression<string>, secretOptions: Expression<string>) {
  return sql<string>`CASE WHEN ${secretOptions} = '[]' THEN ${options} ELSE (
    SELECT coalesce(json_object_agg(o.key, CASE
             WHEN o.key IN (SELECT json_array_elements_text(${secretOptions}::json)) THEN to_json(${REDACTED}::text)
             ELSE o.value END ORDER BY o.n), '{}')::text
    FROM json_each(${options}::json) WITH ORDINALITY AS o(key, value, n)) END`;
}

/** The row `s` as the event's job state: secrets redacted and no lease (a capability to the job). */
function jobState(s: Expression<unknown>) {
  const column = (name: string) => sql.ref<string>(`s.${name}`);
  return sql`(to_jsonb(${s}) || jsonb_build_object(
    'options', ${scrubbedOptions(column('options'), column('secret_options'))},
    'lease_token', NULL, 'lease_expires_at', NULL, 'worker_id', NULL,
    'transfer_secrets', NULL, 'webhook_url', NULL))::text`;
}

/**
 * A transition made in TypeScript (create, cancel, delete, worker_lost): the event body is rendered
 * here from the row, and the rest is one statement.
 */
export async function appendJobEvent(
  conn: Kysely<Tables>,
  origin: string,
  row: JobRow,
  now: number,
): Promise<boolean> {
  const type = eventTypeFor(row.status);
  const { rows } = await sql<{ queued: number }>`
    WITH changed AS (SELECT ${row.id}::text AS id, ${row.account_id}::text AS account_id),
    ${outboxTail({
      source: 'changed',
      type,
      now,
      origin,
      notice: noticeKinds[row.status],
      body: eventBody(type, toJob(row), now),
    })}
    SELECT ${noticesRead}`.execute(conn);
  return Number(rows[0]?.queued) > 0;
}
