// The PostgreSQL connection pool behind Kysely, and the one transaction wrapper the stores use.
// This module (and so `pg`) is loaded only when QUIRE_DATABASE_URL is postgres://.
import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import type { Tables } from '../sql/tables.js';

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
  return new Kysely<Tables>({ dialect: new PostgresDialect({ pool: withStatementCache(pool) }) });
}

/**
 * Per connection, the most statement texts kept prepared. Our queries are a few dozen fixed shapes;
 * `IN (…)` lists of varying length make more, which past this bound simply run unprepared.
 */
const STATEMENTS_PER_CONNECTION = 200;
/** feature_not_supported: "cached plan must not change result type" after a schema change. */
const STALE_PLAN = '0A000';

/**
 * Runs parameterised queries as named prepared statements, so PostgreSQL parses and plans each
 * shape once per connection instead of on every call (Kysely sends unnamed statements; planning
 * the claim's ranking query cost more than running it). Queries without parameters (BEGIN,
 * COMMIT, the multi-statement migrations) stay simple queries. A migration that changes a table's
 * row type under a running process invalidates its statements: the query is prepared afresh once.
 */
function withStatementCache(pool: pg.Pool): PostgresPool {
  interface Prepared {
    names: Map<string, string>;
    generation: number;
  }
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();

  const nameOf = (state: Prepared, text: string): string | undefined => {
    const known = state.names.get(text);
    if (known || state.names.size >= STATEMENTS_PER_CONNECTION) return known;
    const name = `q${state.generation}_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    state.names.set(text, name);
    return name;
  };

  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const state: Prepared = { names: new Map(), generation: 0 };
    const run = (text: string, values: unknown[]) => {
      const name = values.length > 0 ? nameOf(state, text) : undefined;
      return client.query(name ? { name, text, values } : { text, values });
    };
    return {
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's overloads (query text or cursor) in one body.
      query: (async (text: any, parameters?: ReadonlyArray<unknown>) => {
        if (typeof text !== 'string') return client.query(text);
        const values = [...(parameters ?? [])];
        try {
          return await run(text, values);
        } catch (error) {
          if ((error as { code?: string }).code !== STALE_PLAN || !state.names.has(text)) throw error;
          state.generation++;
          state.names.clear();
          return run(text, values);
        }
      }) as PostgresPoolClient['query'],
      release: () => client.release(),
    };
  };

  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
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
