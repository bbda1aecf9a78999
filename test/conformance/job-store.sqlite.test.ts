// Runs the database conformance suite on SQLite files in a temporary directory, plus the checks
// that only make sense for SQLite (locking mode of the claim transaction).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/store/open.js';
import { openSqlite } from '../../src/store/sqlite/connection.js';
import { openSqliteDatabase } from '../../src/store/sqlite/database.js';
import { migrations, runMigrations } from '../../src/store/sqlite/migrations.js';
import { describeJobStoreConformance } from './job-store.suite.js';
import { describeLocalRateLimitConformance } from './local-rate-limits.suite.js';
import { migrationsBefore, newJob, T0 } from './support/job-fixtures.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-sqlite-'));
let files = 0;
const freshUrl = async () => `sqlite://${path.join(dir, `db-${++files}`, 'quire.db')}`;

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describeJobStoreConformance('sqlite', async () => openDatabase(await freshUrl()), {
  freshUrl,
  async migratedBefore(url, name) {
    const db = openSqlite(url.slice('sqlite://'.length));
    await runMigrations(db, T0, migrationsBefore(migrations, name));
    return db;
  },
});
describeLocalRateLimitConformance(async () => openDatabase(await freshUrl()));

describe('sqlite specifics', () => {
  test('claimNext holds the write lock before it reads the queue', async () => {
    const file = path.join(dir, 'lock-check.db');
    const observed: string[] = [];
    let other: BetterSqlite3.Database | undefined;
    const db = openSqliteDatabase(file, {
      onQuery: (sql) => {
        if (!other || !/^begin/i.test(sql)) return;
        // Right after our BEGIN, a second connection must be unable to take the write lock at all.
        try {
          other.exec('begin immediate');
          other.exec('rollback');
          observed.push(`${sql}: lock free`);
        } catch (error) {
          observed.push(`${sql}: ${(error as { code?: string }).code}`);
        }
      },
    });
    await db.migrate();
    await db.accounts.createAccount({ id: 'acct_alice', name: 'A', plan: 'free', createdAt: 1 });
    await db.jobs.create(newJob());
    other = new BetterSqlite3(file, { timeout: 0 });
    try {
      expect(await db.jobs.claimNext('w1', 1000)).toBeDefined();
      expect(observed).toEqual(['begin immediate: SQLITE_BUSY']);
    } finally {
      other.close();
      await db.close();
    }
  });

  test('the quota check reads an account’s usage from covering indexes alone, never the job rows', async () => {
    const file = path.join(dir, 'usage-plan.db');
    const statements: string[] = [];
    const db = openSqliteDatabase(file, { onQuery: (sql) => statements.push(sql) });
    await db.migrate();
    statements.length = 0;
    await db.jobs.accountUsage('acct_alice', T0);
    await db.close();
    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      expect(statements).toHaveLength(1);
      const sql = statements[0]!;
      const values = Array.from(sql.matchAll(/\?/g), () => 'x');
      const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { detail: string }[])
        .map((row) => row.detail)
        .filter((detail) => / jobs /.test(detail));
      expect(plan).toEqual([
        'SEARCH jobs USING COVERING INDEX jobs_account_stored (account_id=?)',
        'SEARCH jobs USING COVERING INDEX jobs_account_status (account_id=? AND status=?)',
        'SEARCH jobs USING COVERING INDEX jobs_account_created (account_id=? AND created_at>?)',
      ]);
    } finally {
      raw.close();
    }
  });

  test('the file runs in WAL mode with foreign keys enforced', async () => {
    const file = path.join(dir, 'pragmas.db');
    const db = openSqliteDatabase(file);
    await db.migrate();
    await expect(db.jobs.create(newJob({ accountId: 'acct_missing' }))).rejects.toThrow(/FOREIGN KEY/);
    await db.close();
    const raw = new BetterSqlite3(file);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.prepare('select count(*) as n from quire_migrations').get()).toEqual({ n: migrations.length });
    raw.close();
  });
});
