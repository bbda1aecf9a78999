// The PostgreSQL Database: a connection pool per process, the SQL stores over it with the
// PostgreSQL dialect, migrations under an advisory lock, and the LISTEN side of job-change notices.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../job-stores.js';
import { QueuedMessages } from '../sql/queued-messages.js';
import { sqlStores } from '../sql/stores.js';
import { openPostgres, type PostgresOptions } from './connection.js';
import { postgresDialect } from './dialect.js';
import { listenForChanges } from './listener.js';
import { runMigrations } from './migrations.js';
import { PostgresUploadStore } from './upload-locks.js';

export function openPostgresDatabase(url: string, options: PostgresOptions): Database {
  const db = openPostgres(url, options);
  const origin = randomUUID();
  const stops = new Set<() => Promise<void>>();
  const messages = new QueuedMessages();
  return {
    ...sqlStores(db, postgresDialect(origin), messages),
    uploads: new PostgresUploadStore(db),
    async migrate() {
      await runMigrations(db);
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async listenForChanges(listener) {
      // Another process's change that queued webhook messages wakes this process's delivery slots.
      const stop = await listenForChanges(url, origin, listener, () => messages.queued());
      stops.add(stop);
      return async () => {
        stops.delete(stop);
        await stop();
      };
    },
    async close() {
      await Promise.all([...stops].map((stop) => stop()));
      await db.destroy();
    },
  };
}
