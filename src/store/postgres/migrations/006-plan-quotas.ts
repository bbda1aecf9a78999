// PostgreSQL migration 6: the indexes behind the plan's account quotas and the expiry of job records
// (docs/api.md §5). Never edit it once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const planQuotas: Migration = {
  id: 6,
  name: 'plan quotas: job records expire, uploads counted per account',
  statements: [
    // As SQLite migration 8: the record-expiry scan, and an account's uploads for its quota.
    'CREATE INDEX jobs_record_expiry ON jobs (completed_at) WHERE completed_at IS NOT NULL',
    'CREATE INDEX uploads_account ON uploads (account_id, expires_at)',
  ],
};
