// PostgreSQL schema history: numbered, forward-only migrations, one file each in migrations/, each run
// in its own transaction by whichever process starts first while the others wait on an advisory lock.
// Never edit a released migration; add the next number instead.
import { type Kysely, sql } from 'kysely';
import type { Migration } from '../sql/dialect.js';
import type { Tables } from '../sql/tables.js';
import { accountsKeysJobsWebhooks } from './migrations/001-accounts-keys-jobs-webhooks.js';
import { jobSteps } from './migrations/002-job-steps.js';
import { workflowsIo } from './migrations/003-workflows-io.js';
import { resumableUploads } from './migrations/004-resumable-uploads.js';
import { jobEventWriter } from './migrations/005-job-event-writer.js';
import { planQuotas } from './migrations/006-plan-quotas.js';
import { recipes } from './migrations/007-recipes.js';
import { jobStoredBytes } from './migrations/008-job-stored-bytes.js';

/** Applied in this order; a migration's id and name are what quire_migrations records. */
export const migrations: readonly Migration[] = [
  accountsKeysJobsWebhooks,
  jobSteps,
  workflowsIo,
  resumableUploads,
  jobEventWriter,
  planQuotas,
  recipes,
  jobStoredBytes,
];

/** One fixed key for pg_advisory_lock: every Quire process migrating this database takes it. */
const MIGRATION_LOCK = 0x5155_4952; // "QUIR"

/**
 * Applies pending migrations (of `list`: tests stop short of a migration to see it upgrade an older
 * version's rows). The session-level advisory lock makes a process that starts at the same moment
 * wait, then find the work recorded; each migration and its record commit together (PostgreSQL DDL
 * is transactional), so a failed one leaves the schema as it was.
 */
export async function runMigrations(
  db: Kysely<Tables>,
  now = Date.now(),
  list: readonly Migration[] = migrations,
): Promise<number[]> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      await sql`create table if not exists quire_migrations (
        id integer PRIMARY KEY,
        name text NOT NULL,
        applied_at bigint NOT NULL
      )`.execute(conn);
      const done = new Set(
        (await conn.selectFrom('quire_migrations').select('id').execute()).map((r) => r.id),
      );
      const applied: number[] = [];
      for (const migration of list) {
        if (done.has(migration.id)) continue;
        await sql`begin`.execute(conn);
        try {
          // One round trip: a query without parameters may hold several statements.
          await sql.raw(migration.statements.join(';\n')).execute(conn);
          await conn
            .insertInto('quire_migrations')
            .values({ id: migration.id, name: migration.name, applied_at: now })
            .execute();
          await sql`commit`.execute(conn);
        } catch (error) {
          await sql`rollback`.execute(conn).catch(() => undefined);
          throw error;
        }
        applied.push(migration.id);
      }
      return applied;
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}
