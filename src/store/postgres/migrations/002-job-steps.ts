// PostgreSQL migration 2: job steps, the steps after the first and the step running (SQLite's 5). Never edit
// it once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const jobSteps: Migration = {
  id: 2,
  name: 'job steps: the steps after the first, and the step running',
  statements: [
    // JSON array of {tool, options}; every job made before steps existed has one step, its tool.
    "ALTER TABLE jobs ADD COLUMN next_steps text NOT NULL DEFAULT '[]'",
    // Written by the lease holder as it moves through the steps; read for the job view only.
    'ALTER TABLE jobs ADD COLUMN current_step integer',
  ],
};
