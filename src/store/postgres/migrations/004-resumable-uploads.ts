// PostgreSQL migration 4: resumable uploads (tus), who owns each upload, its length and expiry (SQLite's 7).
// Never edit it once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const resumableUploads: Migration = {
  id: 4,
  name: 'resumable uploads (tus): the owner, length and expiry of each upload',
  statements: [
    // As SQLite migration 7: the bytes and offset live in the tus data store, this row says who
    // owns the upload, how long it may be and until when it is kept.
    `CREATE TABLE uploads (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id),
        length bigint NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        finished_at bigint
      )`,
    'CREATE INDEX uploads_expiry ON uploads (expires_at)',
  ],
};
