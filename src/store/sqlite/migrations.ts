// SQLite schema history: numbered, forward-only migrations, one file each in migrations/, applied in
// order under an exclusive lock and recorded in quire_migrations. Never edit a released migration; add
// the next number instead.
import { type Kysely, sql } from 'kysely';
import type { Migration } from '../sql/dialect.js';
import type { Tables } from '../sql/tables.js';
import { accountsKeysJobs } from './migrations/001-accounts-keys-jobs.js';
import { idempotencyRateLimitsFairClaiming } from './migrations/002-idempotency-rate-limits-fair-claiming.js';
import { webhooksOutbox } from './migrations/003-webhooks-outbox.js';
import { eventJobState } from './migrations/004-event-job-state.js';
import { jobSteps } from './migrations/005-job-steps.js';
import { workflowsIo } from './migrations/006-workflows-io.js';
import { resumableUploads } from './migrations/007-resumable-uploads.js';
import { planQuotas } from './migrations/008-plan-quotas.js';
import { recipes } from './migrations/009-recipes.js';
import { jobStoredBytes } from './migrations/010-job-stored-bytes.js';

/** Applied in this order; a migration's id and name are what quire_migrations records. */
export const migrations: readonly Migration[] = [
  accountsKeysJobs,
  idempotencyRateLimitsFairClaiming,
  webhooksOutbox,
  eventJobState,
  jobSteps,
  workflowsIo,
  resumableUploads,
  planQuotas,
  recipes,
  jobStoredBytes,
];

/**
 * Applies pending migrations (of `list`: tests stop short of a migration to see it upgrade an older
 * version's rows). BEGIN EXCLUSIVE makes a second process that starts at the same moment wait
 * (busy_timeout) and then find the work already recorded, so nothing runs twice; DDL is
 * transactional in SQLite, so a failed migration leaves the schema as it was.
 */
export async function runMigrations(
  db: Kysely<Tables>,
  now = Date.now(),
  list: readonly Migration[] = migrations,
): Promise<number[]> {
  return db.connection().execute(async (conn) => {
    await sql`begin exclusive`.execute(conn);
    try {
      await sql`create table if not exists quire_migrations (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at INTEGER NOT NULL
      ) STRICT`.execute(conn);
      const done = new Set(
        (await conn.selectFrom('quire_migrations').select('id').execute()).map((r) => r.id),
      );
      const applied: number[] = [];
      for (const migration of list) {
        if (done.has(migration.id)) continue;
        for (const statement of migration.statements) await sql.raw(statement).execute(conn);
        await conn
          .insertInto('quire_migrations')
          .values({ id: migration.id, name: migration.name, applied_at: now })
          .execute();
        applied.push(migration.id);
      }
      await sql`commit`.execute(conn);
      return applied;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw error;
    }
  });
}
