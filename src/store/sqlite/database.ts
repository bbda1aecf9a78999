// The SQLite Database: one connection per process (WAL lets the api and worker processes share the
// file), the SQL stores over it, migrations and lifecycle.
import { sql } from 'kysely';
import type { Database } from '../job-stores.js';
import { sqlStores } from '../sql/stores.js';
import { openSqlite, type SqliteConnectionOptions } from './connection.js';
import { sqliteDialect } from './dialect.js';
import { runMigrations } from './migrations.js';

/**
 * Opens (creating if needed) the SQLite file at `file`; call `migrate()` before use. Open one per
 * process: better-sqlite3 waits for another connection's lock synchronously, so two connections
 * to the same file interleaving transactions in one event loop would wait on each other until
 * busy_timeout.
 */
export function openSqliteDatabase(file: string, options: SqliteConnectionOptions = {}): Database {
  const db = openSqlite(file, options);
  return {
    ...sqlStores(db, sqliteDialect),
    async migrate() {
      await runMigrations(db);
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}
