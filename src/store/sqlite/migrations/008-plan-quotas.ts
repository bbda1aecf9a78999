// SQLite migration 8: the indexes behind the plan's account quotas and the expiry of job records (docs/api.md
// §5). Never edit it once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const planQuotas: Migration = {
  id: 8,
  name: 'plan quotas: job records expire, uploads counted per account',
  statements: [
    // The sweeper's scan for job records past QUIRE_JOB_RECORD_RETENTION_MS, oldest ended first.
    'CREATE INDEX jobs_record_expiry ON jobs (completed_at) WHERE completed_at IS NOT NULL',
    // An account's uploads, summed against its storage quota on every upload it starts.
    'CREATE INDEX uploads_account ON uploads (account_id, expires_at)',
  ],
};
