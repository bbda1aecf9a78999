// Shared set-up for the job-store conformance suites: a fresh migrated database per test, two
// accounts, and job/result builders with sensible defaults.
import type { Kysely } from 'kysely';
import { afterEach, beforeEach } from 'vitest';
import type { JobResult } from '../../../src/model/job.js';
import type { WebhookEndpoint } from '../../../src/model/webhook.js';
import type { Database } from '../../../src/store/job-stores.js';
import type { Tables } from '../../../src/store/sql/tables.js';
import type { NewJob } from '../../../src/store/types.js';

export type OpenDatabase = () => Promise<Database>;

export interface StoreConformanceOptions {
  /**
   * Returns the URL of a fresh, empty database that `openDatabase` understands. Enables the tests
   * that need several connections or processes on the same database.
   */
  freshUrl?: () => Promise<string>;
  /**
   * Opens the database at `url` (from `freshUrl`) migrated up to, not including, the migration
   * named `migration`: the schema an older version wrote rows in, for tests of a migration's
   * upgrade of those rows. The caller destroys the handle.
   */
  migratedBefore?: (url: string, migration: string) => Promise<Kysely<Tables>>;
}

/** The migrations of `list` that run before the one named `name` (which must be there). */
export function migrationsBefore<M extends { name: string }>(list: readonly M[], name: string): M[] {
  const at = list.findIndex((m) => m.name === name);
  if (at < 0) throw new Error(`no migration named ${name}`);
  return list.slice(0, at);
}

export const ALICE = 'acct_alice';
export const BOB = 'acct_bob';
export const T0 = 1_800_000_000_000;
export const LEASE_MS = 30_000;

/** Registers per-test set-up in the enclosing describe; the getter returns this test's database. */
export function useDatabase(open: OpenDatabase): () => Database {
  let db: Database | undefined;
  beforeEach(async () => {
    db = await open();
    await db.migrate();
    await db.accounts.createAccount({ id: ALICE, name: 'Alice', plan: 'pro', createdAt: T0 });
    await db.accounts.createAccount({ id: BOB, name: 'Bob', plan: 'free', createdAt: T0 });
  });
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });
  return () => {
    if (!db) throw new Error('database used outside a test');
    return db;
  };
}

let sequence = 0;

/** A job id that sorts after every earlier one, like the ULIDs the API mints. */
export function jobId(): string {
  sequence += 1;
  return `job_${String(sequence).padStart(10, '0')}`;
}

export function newJob(overrides: Partial<NewJob> = {}): NewJob {
  const id = overrides.id ?? jobId();
  return {
    id,
    accountId: ALICE,
    tool: 'compress',
    options: { level: 'medium' },
    secretOptions: [],
    metadata: { order: 'A-17' },
    inputs: [{ name: 'scan.pdf', size: 1234, contentType: 'application/pdf', blobKey: `jobs/${id}/input-0` }],
    createdAt: T0,
    ...overrides,
  };
}

/** A job carrying a password, to check that terminal transitions scrub it. */
export function secretJob(overrides: Partial<NewJob> = {}): NewJob {
  return newJob({
    tool: 'unlock',
    options: { password: 'hunter2', owner_password: 'sesame', keep: true },
    secretOptions: ['password', 'owner_password', 'not_given'],
    ...overrides,
  });
}

export const scrubbedOptions = { password: '[redacted]', owner_password: '[redacted]', keep: true };

export function result(jobIdValue: string): JobResult {
  return {
    name: 'scan-compressed.pdf',
    size: 999,
    contentType: 'application/pdf',
    blobKey: `jobs/${jobIdValue}/result`,
    facts: { input_size: 1234, output_size: 999, ratio: 0.81 },
  };
}

let endpoints = 0;
/** An enabled endpoint of ALICE subscribed to every event, with numbered ids; `overrides` win. */
export function endpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  endpoints += 1;
  return {
    id: `whe_${String(endpoints).padStart(6, '0')}`,
    accountId: ALICE,
    url: 'https://hooks.example.com/quire',
    description: '',
    events: ['*'],
    secretEncrypted: 'v1.opaque',
    previousSecretEncrypted: null,
    previousSecretExpiresAt: null,
    status: 'enabled',
    disabledReason: null,
    failingSince: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}
