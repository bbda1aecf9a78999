// PostgreSQL migration 8: each job's stored bytes in columns, so the plan's storage quota (docs/api.md
// §5) is a sum over an index instead of a JSON parse of every retained job. Never edit it once
// released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const jobStoredBytes: Migration = {
  id: 8,
  name: 'job stored bytes: input and result sizes in columns, summed per account by an index',
  statements: [
    // As SQLite migration 10. A constant default adds the columns without rewriting the table.
    'ALTER TABLE jobs ADD COLUMN input_bytes bigint NOT NULL DEFAULT 0',
    'ALTER TABLE jobs ADD COLUMN result_bytes bigint NOT NULL DEFAULT 0',
    // Rows written before this migration: inputs and result are JSON in text columns. Only rows with
    // bytes to record are rewritten.
    `UPDATE jobs SET
        input_bytes = (SELECT COALESCE(SUM((i ->> 'size')::bigint), 0)
                         FROM jsonb_array_elements(jobs.inputs::jsonb) AS i),
        result_bytes = COALESCE((jobs.result::jsonb ->> 'size')::bigint, 0)
      WHERE jobs.inputs <> '[]' OR jobs.result IS NOT NULL`,
    // The quota check's sum over the jobs still holding files; INCLUDE lets it be an index-only scan.
    `CREATE INDEX jobs_account_stored ON jobs (account_id)
        INCLUDE (inputs_deleted_at, result_deleted_at, input_bytes, result_bytes)
        WHERE inputs_deleted_at IS NULL OR (result_bytes > 0 AND result_deleted_at IS NULL)`,
  ],
};
