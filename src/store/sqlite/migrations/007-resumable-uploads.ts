// SQLite migration 7: resumable uploads (tus), who owns each upload, its length and expiry. Never edit it
// once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const resumableUploads: Migration = {
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
};
