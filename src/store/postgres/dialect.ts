// PostgreSQL's side of the SQL stores: READ COMMITTED transactions with row locks, the fair claim and
// a worker's finish each in one statement, GCRA with greatest(), and NOTIFY so other processes hear
// of job changes at once.
import { type Kysely, sql } from 'kysely';
import type { JobChangeNotice } from '../../model/job-change.js';
import type { SqlDialect } from '../sql/dialect.js';
import type { Tables } from '../sql/tables.js';
import { transaction } from './connection.js';
import { claimNextFairly } from './job-claim.js';
import { finishLeased } from './job-finish.js';
import { notifySql } from './notices.js';
import { appendJobEvent } from './outbox.js';

/** `origin` identifies this process's notices, so its own listener can skip them. */
export function postgresDialect(origin: string): SqlDialect {
  const notify = async (conn: Kysely<Tables>, change: JobChangeNotice) => {
    await sql`select ${notifySql(origin, sql.val(change.jobId), change.kind)}`.execute(conn);
  };
  return {
    name: 'postgres',
    transaction,
    lockRows(query, options = {}) {
      const locked = options.of ? query.forUpdate(options.of as never) : query.forUpdate();
      return options.skipLocked ? locked.skipLocked() : locked;
    },
    claimNext: (db, workerId, leaseMs, now, limits) =>
      claimNextFairly(db, origin, workerId, leaseMs, now, limits),
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
    appendJobEvent: (conn, row, now) => appendJobEvent(conn, origin, row, now),
    finishLeased: (db, id, token, ending, now) => finishLeased(db, origin, id, token, ending, now),
    // Old row versions stay until VACUUM, the operator's to run (docs/operations.md).
    forgetOverwritten: async () => undefined,
  };
}
