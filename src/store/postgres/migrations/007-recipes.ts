// PostgreSQL migration 7: recipes (docs/api.md §13), named and versioned chains of job steps, and the recipe
// version a job runs. Never edit it once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const recipes: Migration = {
  id: 7,
  name: 'recipes: named, versioned chains of steps; the recipe a job runs',
  statements: [
    `CREATE TABLE recipes (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id),
      name text NOT NULL,
      latest_version integer NOT NULL CHECK (latest_version >= 1),
      created_at bigint NOT NULL
    )`,
    // A name is unique per account; create's ON CONFLICT relies on this index to refuse a second one.
    // It also serves GET /recipes/{name} and the job's `recipe` part by name.
    'CREATE UNIQUE INDEX recipes_account_name ON recipes (account_id, name)',
    // GET /recipes: newest first per account (keyset pages, as jobs).
    'CREATE INDEX recipes_account_created ON recipes (account_id, created_at DESC, id DESC)',
    // Versions are written once and never changed; the primary key makes two writers of one number
    // fail rather than both succeed.
    `CREATE TABLE recipe_versions (
      recipe_id text NOT NULL REFERENCES recipes (id),
      version integer NOT NULL CHECK (version >= 1),
      steps text NOT NULL,
      created_at bigint NOT NULL,
      PRIMARY KEY (recipe_id, version)
    )`,
    // JSON {id, name, version}: no foreign key, so a job keeps what it ran after the recipe is deleted.
    'ALTER TABLE jobs ADD COLUMN recipe text',
  ],
};
