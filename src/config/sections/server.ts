// Where this process keeps its state (data dir, database, blobs), the shared secret and the log
// level: the fields at the top of `Config`, with the defaults derived from the data dir.
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { ConfigError, int, type Section, type SectionValues, setting } from '../section.js';
import { parseS3Url } from '../storage-url.js';

export const server = {
  QUIRE_DATA_DIR: setting(
    'dataDir',
    Type.String({
      default: './data',
      minLength: 1,
      description:
        'Holds the SQLite file, local blobs, temp work dirs, the server secret and initial-api-key.',
    }),
  ),
  QUIRE_DATABASE_URL: setting(
    'databaseUrl',
    Type.String({
      default: '',
      description:
        'sqlite://<path> (default `sqlite://$QUIRE_DATA_DIR/quire.db`) or postgres://user:password@host:5432/db for scale-out (any libpq URL, `?sslmode=require` included); see docs/deployment.md.',
    }),
  ),
  QUIRE_DATABASE_POOL_MAX: setting(
    'databasePoolMax',
    int(
      1,
      500,
      10,
      'PostgreSQL: most pooled connections per process (plus one for LISTEN). Ignored for SQLite.',
    ),
  ),
  QUIRE_STORAGE_URL: setting(
    'storageUrl',
    Type.String({
      default: '',
      description:
        'file://<dir> (default `file://$QUIRE_DATA_DIR/files`) or s3://<bucket>/<prefix>?region=…&endpoint=…&force_path_style=true, with credentials from the AWS chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, …); see docs/operations.md.',
    }),
  ),
  QUIRE_SECRET: setting(
    'secret',
    Type.String({
      default: '',
      description:
        'Server secret (≥ 32 chars) for API-key hashing and download-link signing; shared by every API process. Default: generated once into `$QUIRE_DATA_DIR/server-secret`.',
    }),
  ),
  QUIRE_LOG_LEVEL: setting(
    'logLevel',
    Type.Union(
      [
        Type.Literal('fatal'),
        Type.Literal('error'),
        Type.Literal('warn'),
        Type.Literal('info'),
        Type.Literal('debug'),
        Type.Literal('trace'),
        Type.Literal('silent'),
      ],
      { default: 'info', description: 'pino log level.' },
    ),
  ),
} satisfies Section;

export type Server = SectionValues<typeof server> & {
  /** Engine work dirs, under the data dir. */
  tmpDir: string;
};

/** Absolute data dir, the database and storage URLs defaulted under it, each checked. */
export function resolveServer(values: SectionValues<typeof server>): Server {
  if (values.secret !== '' && values.secret.length < 32) {
    throw new ConfigError('QUIRE_SECRET must be at least 32 characters');
  }
  const dataDir = path.resolve(values.dataDir);
  const databaseUrl = values.databaseUrl || `sqlite://${path.join(dataDir, 'quire.db')}`;
  const storageUrl = values.storageUrl || `file://${path.join(dataDir, 'files')}`;
  if (!/^(sqlite|postgres|postgresql):\/\//.test(databaseUrl)) {
    throw new ConfigError(
      `QUIRE_DATABASE_URL must start with sqlite:// or postgres:// (got scheme "${databaseUrl.split(':')[0]}")`,
    );
  }
  checkStorageUrl(storageUrl);
  return { ...values, dataDir, databaseUrl, storageUrl, tmpDir: path.join(dataDir, 'tmp') };
}

function checkStorageUrl(storageUrl: string): void {
  if (/^s3:\/\//.test(storageUrl)) {
    // Checked here, without the AWS SDK, so a bad bucket or parameter fails at start with the name.
    try {
      parseS3Url(storageUrl);
    } catch (error) {
      throw new ConfigError(`QUIRE_STORAGE_URL: ${(error as Error).message}`);
    }
  } else if (!/^file:\/\//.test(storageUrl)) {
    throw new ConfigError(
      `QUIRE_STORAGE_URL must start with file:// or s3:// (got scheme "${storageUrl.split(':')[0]}")`,
    );
  }
}
