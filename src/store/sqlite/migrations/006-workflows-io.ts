// SQLite migration 6: workflows I/O (issue 15), batches, URL imports and exports, per-job webhook URLs. Never
// edit it once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const workflowsIo: Migration = {
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
};
