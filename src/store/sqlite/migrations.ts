// SQLite schema history: numbered, forward-only migrations applied in order under an exclusive lock
// and recorded in quire_migrations. Never edit a released migration; add the next number instead.
import { type Kysely, sql } from 'kysely';
import type { Migration } from '../sql/dialect.js';
import type { Tables } from '../sql/rows.js';
import { recipesMigration } from './recipes-migration.js';

export const migrations: readonly Migration[] = [
  {
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
  },
  {
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
  },
  {
    id: 3,
    name: 'webhook endpoints, job event outbox, deliveries',
    statements: [
      // Secrets are AES-256-GCM ciphertexts (src/webhooks/secrets.ts); the store never sees plaintext.
      `CREATE TABLE webhook_endpoints (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        url TEXT NOT NULL,
        description TEXT NOT NULL,
        events TEXT NOT NULL,
        secret TEXT NOT NULL,
        previous_secret TEXT,
        previous_secret_expires_at INTEGER,
        status TEXT NOT NULL CHECK (status IN ('enabled', 'disabled')),
        disabled_reason TEXT,
        failing_since INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT`,
      // Fan-out reads an account's endpoints inside every job transition: keep that an index probe.
      'CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at)',
      // The outbox: one row per job state change, written in the transition's own transaction.
      // The body is BLOB so the bytes signed and sent are exactly the bytes stored.
      `CREATE TABLE webhook_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        job_id TEXT NOT NULL,
        type TEXT NOT NULL,
        body BLOB NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT`,
      'CREATE INDEX webhook_events_job ON webhook_events (job_id, id)',
      'CREATE INDEX webhook_events_created ON webhook_events (created_at)',
      // One row per (event, endpoint): the durable unit of delivery, leased like a job. Deleting an
      // endpoint deletes its messages and their attempts.
      `CREATE TABLE webhook_messages (
        id TEXT PRIMARY KEY,
        event_id INTEGER NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
        endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        account_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        lease_token TEXT,
        lease_expires_at INTEGER,
        created_at INTEGER NOT NULL,
        completed_at INTEGER
      ) STRICT`,
      // The delivery queue: only pending messages, by due time, so an idle poll is one index probe.
      "CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at) WHERE status = 'pending'",
      // GET /webhooks/{id}/deliveries, newest first; also serves the cascade from endpoints.
      'CREATE INDEX webhook_messages_endpoint ON webhook_messages (endpoint_id, created_at DESC, id DESC)',
      // The cascade from events, and the prune's "no pending message" check.
      'CREATE INDEX webhook_messages_event ON webhook_messages (event_id, status)',
      `CREATE TABLE webhook_attempts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        message_id TEXT NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
        attempted_at INTEGER NOT NULL,
        status_code INTEGER,
        latency_ms INTEGER NOT NULL,
        error_class TEXT,
        response_excerpt TEXT
      ) STRICT`,
      'CREATE INDEX webhook_attempts_message ON webhook_attempts (message_id, id)',
    ],
  },
  {
    id: 4,
    name: 'job events may carry the job state instead of a body',
    statements: [
      // The event shape PostgreSQL writes from inside one statement (its migration 1); SQLite always
      // renders the body at once, so here the column stays empty.
      'ALTER TABLE webhook_events ADD COLUMN job_state TEXT',
    ],
  },
  {
    id: 5,
    name: 'job steps: the steps after the first, and the step running',
    statements: [
      // JSON array of {tool, options}; every job made before steps existed has one step, its tool.
      "ALTER TABLE jobs ADD COLUMN next_steps TEXT NOT NULL DEFAULT '[]'",
      // Written by the lease holder as it moves through the steps; read for the job view only.
      'ALTER TABLE jobs ADD COLUMN current_step INTEGER',
    ],
  },
  {
    // Workflows I/O (issue 15): batches, URL imports, exports and per-job webhook URLs.
    id: 6,
    name: 'workflows io: batches, transfers, job webhook urls',
    statements: [
      'ALTER TABLE jobs ADD COLUMN batch_id text',
      // Hosts only (the job view's source of truth for transfers); kept for the job's life.
      'ALTER TABLE jobs ADD COLUMN transfers text',
      // Full URLs and headers: set to NULL with the inputs when the job ends (markInputsDeleted).
      'ALTER TABLE jobs ADD COLUMN transfer_secrets text',
      'ALTER TABLE jobs ADD COLUMN webhook_url text',
      // A batch's jobs for its counts, cancel and ZIP; most jobs have no batch, so partial.
      'CREATE INDEX jobs_batch ON jobs (batch_id, created_at, id) WHERE batch_id IS NOT NULL',
      `CREATE TABLE batches (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id),
        tool text NOT NULL,
        job_count integer NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT`,
      `ALTER TABLE webhook_endpoints ADD COLUMN kind text NOT NULL DEFAULT 'endpoint'
        CHECK (kind IN ('endpoint', 'job_callback'))`,
      // One job-callback endpoint per account: two first uses at once insert one row.
      `CREATE UNIQUE INDEX webhook_endpoints_job_callback ON webhook_endpoints (account_id)
        WHERE kind = 'job_callback'`,
      // A job's own webhook_url, sent instead of the endpoint's URL.
      'ALTER TABLE webhook_messages ADD COLUMN url text',
    ],
  },
  {
    id: 7,
    name: 'resumable uploads (tus): the owner, length and expiry of each upload',
    statements: [
      // The bytes and the offset live in the tus data store; this row is who owns the upload, how
      // long it may be and until when it is kept. finished_at is set once the last byte arrived.
      `CREATE TABLE uploads (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        length INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        finished_at INTEGER
      ) STRICT, WITHOUT ROWID`,
      // The sweeper's scan for uploads past their expiry.
      'CREATE INDEX uploads_expiry ON uploads (expires_at)',
    ],
  },
  {
    id: 8,
    name: 'plan quotas: job records expire, uploads counted per account',
    statements: [
      // The sweeper's scan for job records past QUIRE_JOB_RECORD_RETENTION_MS, oldest ended first.
      'CREATE INDEX jobs_record_expiry ON jobs (completed_at) WHERE completed_at IS NOT NULL',
      // An account's uploads, summed against its storage quota on every upload it starts.
      'CREATE INDEX uploads_account ON uploads (account_id, expires_at)',
    ],
  },
  recipesMigration,
];

/**
 * Applies pending migrations. BEGIN EXCLUSIVE makes a second process that starts at the same moment
 * wait (busy_timeout) and then find the work already recorded, so nothing runs twice; DDL is
 * transactional in SQLite, so a failed migration leaves the schema as it was.
 */
export async function runMigrations(db: Kysely<Tables>, now = Date.now()): Promise<number[]> {
  return db.connection().execute(async (conn) => {
    await sql`begin exclusive`.execute(conn);
    try {
      await sql`create table if not exists quire_migrations (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at INTEGER NOT NULL
      ) STRICT`.execute(conn);
      const done = new Set(
        (await conn.selectFrom('quire_migrations').select('id').execute()).map((r) => r.id),
      );
      const applied: number[] = [];
      for (const migration of migrations) {
        if (done.has(migration.id)) continue;
        for (const statement of migration.statements) await sql.raw(statement).execute(conn);
        await conn
          .insertInto('quire_migrations')
          .values({ id: migration.id, name: migration.name, applied_at: now })
          .execute();
        applied.push(migration.id);
      }
      await sql`commit`.execute(conn);
      return applied;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw error;
    }
  });
}
