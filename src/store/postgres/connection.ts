// The PostgreSQL connection pool behind Kysely, and the one transaction wrapper the stores use.
// This module (and so `pg`) is loaded only when QUIRE_DATABASE_URL is postgres://.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Tables } from '../sql/rows.js';

export interface PostgresOptions {
  /** Most connections this process holds (the LISTEN connection is one more). */
  poolMax: number;
}

/**
 * Times are bigint (epoch ms) and counts are bigint: read them back as numbers. Epoch ms stay far
 * below 2^53, and so do our counts.
 */
const INT8_OID = 20;
export const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export function openPostgres(url: string, options: PostgresOptions): Kysely<Tables> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax,
    types: pgTypes,
    application_name: 'quire',
    // A connection the server dropped while idle is discarded and replaced; without a listener the
    // pool's 'error' event would end the process. The next query reports a real outage.
  });
  pool.on('error', () => undefined);
  return new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
}

/** deadlock_detected and serialization_failure: the transaction was rolled back and may be rerun. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 4;

/**
 * READ COMMITTED transaction; the stores lock the rows they read before changing them. Two
 * transactions locking the same rows in opposite orders (rare: an endpoint being disabled while one
 * of its deliveries is recorded) make PostgreSQL abort one; it is run again, since every
 * transaction body here only touches the database.
 */
export async function transaction<T>(
  db: Kysely<Tables>,
  work: (conn: Kysely<Tables>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= ATTEMPTS || code === undefined || !RETRYABLE.has(code)) throw error;
    }
  }
}
