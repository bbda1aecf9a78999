// SQLite migration 10: each job's stored bytes in columns, so the plan's storage quota (docs/api.md §5)
// is a sum over an index instead of a JSON parse of every retained job. Never edit it once released;
// add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const jobStoredBytes: Migration = {
  id: 10,
  name: 'job stored bytes: input and result sizes in columns, summed per account by an index',
  statements: [
    // The sum of the inputs' sizes (written at create and when URL inputs are recorded) and the
    // result's size (written at completion); kept after the files are deleted, like the JSON.
    'ALTER TABLE jobs ADD COLUMN input_bytes INTEGER NOT NULL DEFAULT 0',
    'ALTER TABLE jobs ADD COLUMN result_bytes INTEGER NOT NULL DEFAULT 0',
    // Rows written before this migration: the same sizes, from the JSON the stores wrote.
    `UPDATE jobs SET
        input_bytes = (SELECT COALESCE(SUM(json_extract(i.value, '$.size')), 0) FROM json_each(jobs.inputs) i),
        result_bytes = COALESCE(json_extract(jobs.result, '$.size'), 0)`,
    // The quota check's sum: only the jobs still holding files, with every column the sum reads, so
    // SQLite answers from the index alone. accountUsage repeats the predicate for the planner. A
    // result of 0 bytes adds nothing, so "result_bytes > 0" stands for "has a result".
    `CREATE INDEX jobs_account_stored ON jobs
        (account_id, inputs_deleted_at, result_deleted_at, input_bytes, result_bytes)
        WHERE inputs_deleted_at IS NULL OR (result_bytes > 0 AND result_deleted_at IS NULL)`,
  ],
};
