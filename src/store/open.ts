// Chooses the database implementation from QUIRE_DATABASE_URL. Each dialect is imported only when
// its scheme is used, so the embedded SQLite default never loads a PostgreSQL driver.
import path from 'node:path';
import type { Database } from './job-stores.js';

const SQLITE = 'sqlite://';
const DEFAULT_POOL_MAX = 10;

export interface OpenOptions {
  /** PostgreSQL: most pooled connections this process holds (default 10). */
  poolMax?: number;
}

/**
 * `sqlite://<path>` (relative to the working directory, or `sqlite:///abs/path`; `sqlite://:memory:`
 * for a private in-memory database; the parent directory is created), or
 * `postgres://user:password@host:port/database` (any libpq connection URL, `?sslmode=…` included). Migrations are not run here:
 * the composition root calls `migrate()` so that failing to migrate is reported on its own.
 */
export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  if (url.startsWith(SQLITE)) {
    const location = decodeURIComponent(url.slice(SQLITE.length));
    if (location === '') throw new Error('sqlite:// database URL has no path');
    const { openSqliteDatabase } = await import('./sqlite/database.js');
    return openSqliteDatabase(location === ':memory:' ? location : path.resolve(location));
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { openPostgresDatabase } = await import('./postgres/database.js');
    return openPostgresDatabase(url, { poolMax: options.poolMax ?? DEFAULT_POOL_MAX });
  }
  const scheme = url.includes(':') ? url.slice(0, url.indexOf(':')) : url;
  throw new Error(`Unsupported database URL scheme "${scheme}"; use sqlite://<path> or postgres://…`);
}
