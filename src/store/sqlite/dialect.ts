// SQLite's side of the SQL stores: the database-wide write lock, the fair claim as one statement,
// and GCRA with SQLite's two-argument max(). No change channel: other processes poll.
import { sql } from 'kysely';
import type { SqlDialect } from '../sql/dialect.js';
import { writeJobEvent } from '../sql/job-outbox.js';
import { checkpointWal, withWriteLock } from './connection.js';
import { claimNextFairly } from './job-claim.js';
import { finishLeased } from './job-finish.js';

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  transaction: withWriteLock,
  // BEGIN IMMEDIATE already holds the only write lock: no row another writer could be changing.
  lockRows: (query) => query,
  claimNext: claimNextFairly,
  async consumeRate(db, bucket, policy, now) {
    const interval = policy.windowMs / policy.quota;
    // SET expressions all read the old row, so `allowed` and `tat` are decided on the same state.
    // A refused request leaves tat unchanged: clients hammering while limited do not push the
    // reset further out.
    const { rows } = await sql<{ tat: number; allowed: number }>`
      INSERT INTO rate_limits (bucket, tat, allowed) VALUES (${bucket}, ${now + interval}, 1)
      ON CONFLICT (bucket) DO UPDATE SET
        allowed = (max(tat, ${now}) + ${interval} - ${now} <= ${policy.windowMs}),
        tat = CASE WHEN max(tat, ${now}) + ${interval} - ${now} <= ${policy.windowMs}
                   THEN max(tat, ${now}) + ${interval} ELSE tat END
      RETURNING tat, allowed`.execute(db);
    const row = rows[0]!;
    return { tat: row.tat, allowed: row.allowed === 1 };
  },
  notify: async () => undefined,
  // Other processes on the file poll: the event is all there is to write.
  appendJobEvent: writeJobEvent,
  finishLeased,
  forgetOverwritten: checkpointWal,
};
