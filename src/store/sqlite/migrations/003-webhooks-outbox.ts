// SQLite migration 3: webhook endpoints, the job event outbox and its per-endpoint messages and delivery
// attempts. Never edit it once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const webhooksOutbox: Migration = {
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
};
