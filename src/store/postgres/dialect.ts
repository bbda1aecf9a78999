// PostgreSQL's side of the SQL stores: READ COMMITTED transactions with row locks, the fair claim
// with SKIP LOCKED, GCRA with greatest(), and NOTIFY so other processes hear of job changes at once.
import { type Kysely, sql } from 'kysely';
import type { SqlDialect } from '../sql/dialect.js';
import type { Tables } from '../sql/rows.js';
import type { JobChangeNotice } from '../types.js';
import { transaction } from './connection.js';
import { claimNextFairly } from './job-claim.js';

/** The NOTIFY channel job changes travel on. */
export const CHANGES_CHANNEL = 'quire_job_changes';

/** A notice as sent: the change plus the sending process, which ignores its own. */
export interface ChangePayload {
  origin: string;
  jobId: string;
  kind: JobChangeNotice['kind'];
}

/** `origin` identifies this process's notices, so its own listener can skip them. */
export function postgresDialect(origin: string): SqlDialect {
  const notify = async (conn: Kysely<Tables>, change: JobChangeNotice) => {
    const payload: ChangePayload = { origin, jobId: change.jobId, kind: change.kind };
    await sql`select pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify(payload)})`.execute(conn);
  };
  const dialect: SqlDialect = {
    name: 'postgres',
    transaction,
    lockRows(query, options = {}) {
      const locked = options.of ? query.forUpdate(options.of as never) : query.forUpdate();
      return options.skipLocked ? locked.skipLocked() : locked;
    },
    claimNext: (db, workerId, leaseMs, now, limits) =>
      claimNextFairly(db, workerId, leaseMs, now, limits, dialect),
    async consumeRate(db, bucket, policy, now) {
      const interval = policy.windowMs / policy.quota;
      // As on SQLite: every SET expression reads the old row; a refused request leaves tat as it was.
      // Parameters are cast because PostgreSQL cannot infer a type for `$1 + $2`.
      const { rows } = await sql<{ tat: number; allowed: boolean }>`
        INSERT INTO rate_limits AS r (bucket, tat, allowed)
        VALUES (${bucket}, ${now + interval}::float8, true)
        ON CONFLICT (bucket) DO UPDATE SET
          allowed = greatest(r.tat, ${now}::float8) + ${interval}::float8 - ${now}::float8
                    <= ${policy.windowMs}::float8,
          tat = CASE WHEN greatest(r.tat, ${now}::float8) + ${interval}::float8 - ${now}::float8
                          <= ${policy.windowMs}::float8
                     THEN greatest(r.tat, ${now}::float8) + ${interval}::float8 ELSE r.tat END
        RETURNING tat, allowed`.execute(db);
      const row = rows[0]!;
      return { tat: row.tat, allowed: row.allowed };
    },
    notify,
    async insertJobEvent(conn, event, notice) {
      const payload: ChangePayload = { origin, jobId: notice.jobId, kind: notice.kind };
      // One round trip: the event, the notice (delivered on commit) and the endpoints to fan out to.
      const { rows } = await sql<{ event_id: number; endpoint_id: string | null; events: string | null }>`
        WITH e AS (
          INSERT INTO webhook_events (account_id, job_id, type, body, created_at)
          VALUES (${event.account_id}, ${event.job_id}, ${event.type}, ${event.body}, ${event.created_at})
          RETURNING id
        ),
        n AS (SELECT pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify(payload)}))
        SELECT e.id AS event_id, w.id AS endpoint_id, w.events
        FROM e CROSS JOIN n
        LEFT JOIN webhook_endpoints w ON w.account_id = ${event.account_id} AND w.status = 'enabled'`.execute(
        conn,
      );
      const first = rows[0];
      if (!first) throw new Error('the outbox insert returned no row');
      const endpoints = rows.flatMap((r) =>
        r.endpoint_id !== null && r.events !== null ? [{ id: r.endpoint_id, events: r.events }] : [],
      );
      return { eventId: first.event_id, endpoints };
    },
  };
  return dialect;
}
