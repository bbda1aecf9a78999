// SQLite migration 1: the first schema, accounts, their API keys and the jobs table with the indexes of
// claiming, listing and the sweeps. Never edit it once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const accountsKeysJobs: Migration = {
  id: 1,
  name: 'accounts, api keys and jobs',
  statements: [
    `CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        plan TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT`,
    `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        name TEXT NOT NULL,
        secret_hash TEXT NOT NULL,
        scopes TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
      ) STRICT`,
    // Listing an account's keys (admin) without a full scan.
    'CREATE INDEX api_keys_account ON api_keys (account_id, created_at)',
    `CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        tool TEXT NOT NULL,
        options TEXT NOT NULL,
        secret_options TEXT NOT NULL,
        metadata TEXT NOT NULL,
        inputs TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'processing', 'succeeded', 'failed', 'canceled')),
        progress INTEGER NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
        result TEXT,
        error TEXT,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        completed_at INTEGER,
        expires_at INTEGER,
        result_deleted_at INTEGER,
        inputs_deleted_at INTEGER,
        deleted_at INTEGER,
        lease_token TEXT,
        lease_expires_at INTEGER,
        worker_id TEXT,
        stalls INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0
      ) STRICT`,
    // Claim order. Partial, so the index holds only the queue itself and claiming stays O(log queue)
    // however many finished jobs the table keeps; claimNext's WHERE must repeat the predicate.
    "CREATE INDEX jobs_queue ON jobs (created_at, id) WHERE status = 'queued'",
    // GET /jobs: newest first per account, optionally by status or tool (docs/api.md §2, listing jobs).
    'CREATE INDEX jobs_account_created ON jobs (account_id, created_at DESC, id DESC)',
    'CREATE INDEX jobs_account_status ON jobs (account_id, status, created_at DESC, id DESC)',
    'CREATE INDEX jobs_account_tool ON jobs (account_id, tool, created_at DESC, id DESC)',
    // The lease sweep looks only at running jobs, a small set, ordered by expiry.
    "CREATE INDEX jobs_lease_expiry ON jobs (lease_expires_at) WHERE status = 'processing'",
    // Retention sweep: succeeded results still on disk, by expiry.
    `CREATE INDEX jobs_result_expiry ON jobs (expires_at)
        WHERE status = 'succeeded' AND result_deleted_at IS NULL`,
    // Results of deleted jobs wait here until the sweeper has removed their blobs.
    `CREATE INDEX jobs_deleted_results ON jobs (deleted_at)
        WHERE deleted_at IS NOT NULL AND result IS NOT NULL AND result_deleted_at IS NULL`,
    // Ended jobs whose inputs still need deleting: normally empty, so the cleaner's poll is free.
    `CREATE INDEX jobs_inputs_pending ON jobs (completed_at)
        WHERE inputs_deleted_at IS NULL AND status IN ('succeeded', 'failed', 'canceled')`,
  ],
};
