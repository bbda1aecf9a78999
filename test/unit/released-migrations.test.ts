// Released migrations never change: a database records a migration's id and name once and never runs it
// again, so an edited statement would leave old databases with a different schema than new ones. The
// table below was computed from the migration lists of commit b71c220 (before they were split into one
// file per migration): id, name, and the SHA-256 of JSON.stringify(statements) — every byte of the SQL
// each dialect runs. A new migration adds a row; a changed hash means a released migration was edited.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrations as postgresMigrations } from '../../src/store/postgres/migrations.js';
import type { Migration } from '../../src/store/sql/dialect.js';
import { migrations as sqliteMigrations } from '../../src/store/sqlite/migrations.js';

type Released = readonly [id: number, name: string, sha256: string];

const releasedSqlite: readonly Released[] = [
  [1, 'accounts, api keys and jobs', 'c288bb0ba975290420abbebf0d14507be62c593c0d441ce647a2a697aacad2b8'],
  [
    2,
    'idempotency keys, rate limits, fair claiming',
    '0f66e0190601d620a3a8168e1b70b82eda3bbed0b23d97134c2ae146f6400899',
  ],
  [
    3,
    'webhook endpoints, job event outbox, deliveries',
    'b3f7faad149eedc5d59c6b109489e057984d86b621182c0144e370186fa56e2d',
  ],
  [
    4,
    'job events may carry the job state instead of a body',
    '25af0a1077b0942dc65e72dc62d26cdbe39e98448439559f9cd7fa79977e30cc',
  ],
  [
    5,
    'job steps: the steps after the first, and the step running',
    '8399a5c608a6c845068413830db21cc3d9fcbfcd8290b61ffdd0f51e6bfc7572',
  ],
  [
    6,
    'workflows io: batches, transfers, job webhook urls',
    'ecf6d09bdb2385082c39f4a05fa0926d897339a07418642ee233803aa451e71b',
  ],
  [
    7,
    'resumable uploads (tus): the owner, length and expiry of each upload',
    '605f1a233b0cd4e4cb88c654e564635d3b3ee1b08f9fbeea03d0e202e8abce68',
  ],
  [
    8,
    'plan quotas: job records expire, uploads counted per account',
    '9df68f86a30316634a3737894b776e9755cc1b7921ddd47d328ed69da2dc8af7',
  ],
  [
    9,
    'recipes: named, versioned chains of steps; the recipe a job runs',
    '78ceee01b2d11055ab9680335c9bd765d3d00ac4efacdb43a83c62acb5416788',
  ],
  [
    10,
    'job stored bytes: input and result sizes in columns, summed per account by an index',
    '60a224e7c3805afa2a3459417a9761a3ce8aa32b7d2ea944131f604b0ecd5f70',
  ],
];

const releasedPostgres: readonly Released[] = [
  [
    1,
    'accounts, keys, jobs, idempotency, rate limits, webhooks',
    'c4e84befa863e05a13b86b964efd17a2271bb4de068a8acd9abc202d0d5c5910',
  ],
  [
    2,
    'job steps: the steps after the first, and the step running',
    '316766b8cfa55c41490c312e0345caac0b90af4aa9cbc739bf6d5d75342fa9e0',
  ],
  [
    3,
    'workflows io: batches, transfers, job webhook urls',
    '72f7c7e3dffe1fdf667c120a4a525dedfa7e2e8554a34243c555e78992e90def',
  ],
  [
    4,
    'resumable uploads (tus): the owner, length and expiry of each upload',
    'f65f9eabeb64702865065d040d3a92b1d017d1158dbf04453199bbe2c51b7c35',
  ],
  [
    5,
    'job events written by a function, only when an endpoint receives them',
    '39a2ef42ca1bfc1b2b2bbee36fa6ab2e833e54a00c80573397a5f99023f95e8f',
  ],
  [
    6,
    'plan quotas: job records expire, uploads counted per account',
    '9df68f86a30316634a3737894b776e9755cc1b7921ddd47d328ed69da2dc8af7',
  ],
  [
    7,
    'recipes: named, versioned chains of steps; the recipe a job runs',
    'a232cf1ba6c7cb848279a4907a2ee49fd1589ee4c3d9dd53ca6db8e14ff8ad6a',
  ],
  [
    8,
    'job stored bytes: input and result sizes in columns, summed per account by an index',
    'ff250635ad16f253dcea8f2a3502ccdac71feb32e8abefb2edda340ef14b8d4d',
  ],
];

function fingerprint(migration: Migration): Released {
  const sha256 = createHash('sha256').update(JSON.stringify(migration.statements)).digest('hex');
  return [migration.id, migration.name, sha256];
}

describe.each([
  { dialect: 'SQLite', list: sqliteMigrations, released: releasedSqlite },
  { dialect: 'PostgreSQL', list: postgresMigrations, released: releasedPostgres },
])('$dialect migrations', ({ list, released }) => {
  it('keeps every released migration in its place with its id, name and SQL byte for byte', () => {
    expect(list.slice(0, released.length).map(fingerprint)).toEqual(released);
  });

  it('numbers the migrations 1, 2, 3… in the order they run', () => {
    expect(list.map((m) => m.id)).toEqual(list.map((_, i) => i + 1));
  });
});
