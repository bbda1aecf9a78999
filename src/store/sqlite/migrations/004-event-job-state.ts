// SQLite migration 4: the job_state column that PostgreSQL's one-statement transitions write instead of an
// event body. Never edit it once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const eventJobState: Migration = {
  id: 4,
  name: 'job events may carry the job state instead of a body',
  statements: [
    // The event shape PostgreSQL writes from inside one statement (its migration 1); SQLite always
    // renders the body at once, so here the column stays empty.
    'ALTER TABLE webhook_events ADD COLUMN job_state TEXT',
  ],
};
