// One SQLite connection per process: pragmas for several processes sharing the file, a bounded
// prepared-statement cache, and the write-lock transaction every read-modify-write goes through.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, type LogEvent, type SqliteDatabase, SqliteDialect, type SqliteStatement, sql } from 'kysely';
import type { Tables } from '../sql/tables.js';

/** How long a writer waits for another process's write lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * Kysely prepares every query afresh; our queries are a few dozen fixed shapes, so reusing their
 * statements saves a parse per call on the claim/complete path. Bounded because `IN (?, ?, …)`
 * lists of varying length make new shapes.
 */
const STATEMENT_CACHE_SIZE = 256;

export interface SqliteConnectionOptions {
  /** Called with the SQL of every statement run (tests use it to observe locking). */
  onQuery?: (sql: string) => void;
}

export function openSqlite(file: string, options: SqliteConnectionOptions = {}): Kysely<Tables> {
  const memory = file === ':memory:';
  if (!memory) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    ownerOnly(file);
  }
  const raw = new BetterSqlite3(file);
  // busy_timeout first: switching to WAL itself needs a lock another starting process may hold.
  raw.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!memory) raw.pragma('journal_mode = WAL');
  // With WAL, NORMAL loses at most the last commits on power loss, never consistency; FULL would
  // fsync on every job transition.
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  // Secret options (passwords, signing keys) are overwritten when their job ends; without this the
  // old bytes would stay in the file's free space until reused.
  raw.pragma('secure_delete = ON');
  const onQuery = options.onQuery;
  return new Kysely<Tables>({
    dialect: new SqliteDialect({ database: withStatementCache(raw) }),
    log: onQuery ? (event: LogEvent) => onQuery(event.query.sql) : undefined,
  });
}

/**
 * The database holds secrets while their jobs run (passwords, signing keys, URLs with tokens): it is
 * the owner's alone, whatever the umask. SQLite creates -wal and -shm with the database file's mode;
 * files an older version left readable are tightened too.
 */
function ownerOnly(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const each of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.chmodSync(each, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

function withStatementCache(raw: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => raw.close(),
    prepare(text: string): SqliteStatement {
      const cached = cache.get(text);
      if (cached) return cached;
      const statement = raw.prepare(text) as unknown as SqliteStatement;
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(text, statement);
      return statement;
    },
  };
}

/**
 * The WAL still holds the page images with secrets as first written; a TRUNCATE checkpoint moves the
 * overwritten pages into the database (secure_delete zeroes the old cells there) and empties the WAL.
 * A reader in another process can hold the checkpoint back: it then ends at the next one.
 */
export async function checkpointWal(db: Kysely<Tables>): Promise<void> {
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
}

/**
 * Runs `work` in a transaction that holds the database write lock from its first statement.
 * A plain (deferred) BEGIN would read first and try to upgrade later; under WAL that upgrade fails
 * with SQLITE_BUSY_SNAPSHOT when another process wrote in between, and busy_timeout cannot retry it.
 * IMMEDIATE waits for the lock up front, so two processes can never act on the same read.
 */
export async function withWriteLock<T>(
  db: Kysely<Tables>,
  work: (conn: Kysely<Tables>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const result = await work(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (error) {
      // SQLite may already have rolled back (e.g. on SQLITE_FULL); the original error is what matters.
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw error;
    }
  });
}
