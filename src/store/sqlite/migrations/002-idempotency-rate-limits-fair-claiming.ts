// SQLite migration 2: idempotency keys (docs/api.md §4), rate-limit state, and claiming by account in turn
// instead of oldest first. Never edit it once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const idempotencyRateLimitsFairClaiming: Migration = {
  id: 2,
  name: 'idempotency keys, rate limits, fair claiming',
  statements: [
    // docs/api.md §4: one row per (account, method, route template, key). The primary key is what
    // makes the claim atomic: the first INSERT wins, a concurrent one conflicts.
    `CREATE TABLE idempotency_keys (
        account_id TEXT NOT NULL REFERENCES accounts (id),
        method TEXT NOT NULL,
        route TEXT NOT NULL,
        key TEXT NOT NULL,
        token TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('in_flight', 'completed')),
        fingerprint TEXT,
        status INTEGER,
        headers TEXT,
        body BLOB,
        created_at INTEGER NOT NULL,
        locked_until INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, method, route, key)
      ) STRICT, WITHOUT ROWID`,
    // Retention pruning by expiry.
    'CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)',
    // GCRA state: the theoretical arrival time per bucket (REAL ms: quotas need not divide windows).
    `CREATE TABLE rate_limits (
        bucket TEXT PRIMARY KEY,
        tat REAL NOT NULL,
        allowed INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID`,
    'CREATE INDEX rate_limits_tat ON rate_limits (tat)',
    // Fair claiming takes turns by the last time each account had a job claimed.
    'ALTER TABLE accounts ADD COLUMN last_claim_at INTEGER',
    // Per-account queue heads: the claim picks an account first, then its oldest queued job.
    "CREATE INDEX jobs_queue_account ON jobs (account_id, created_at, id) WHERE status = 'queued'",
    // The global oldest-first queue order is no longer how jobs are claimed; keeping its index
    // would only cost a write on every status change.
    'DROP INDEX jobs_queue',
    // Running jobs per account are counted through jobs_account_status (migration 1), which covers
    // (account_id, status): no second index to keep up on every status change.
  ],
};
