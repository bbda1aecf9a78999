// Workflows I/O (docs/api.md §2, §11): URL imports, exports, batches: `config.transfers`.
import { Type } from '@sinclair/typebox';
import { int, type Section, setting } from '../section.js';

const MINUTE = 60_000;

export const transfers = {
  QUIRE_IMPORT_TIMEOUT_MS: setting(
    'importTimeoutMs',
    int(
      100,
      6 * 60 * MINUTE,
      10 * MINUTE,
      'Time a worker gives one `file_url` import, redirects included, before failing the job with import_timeout.',
    ),
  ),
  QUIRE_EXPORT_TIMEOUT_MS: setting(
    'exportTimeoutMs',
    int(100, 6 * 60 * MINUTE, 10 * MINUTE, 'Time a worker gives the upload to a job’s `export` URL.'),
  ),
  QUIRE_TRANSFER_STALL_MS: setting(
    'stallMs',
    int(
      500,
      10 * MINUTE,
      30_000,
      'A `file_url` import or `export` upload that moves fewer than QUIRE_TRANSFER_STALL_MIN_BYTES in this window fails (import_timeout, export_failed).',
    ),
  ),
  QUIRE_TRANSFER_STALL_MIN_BYTES: setting(
    'stallMinBytes',
    int(1, 1024 * 1024 * 1024, 16 * 1024, 'The least a transfer must move per QUIRE_TRANSFER_STALL_MS.'),
  ),
  QUIRE_TRANSFER_CONCURRENCY: setting(
    'concurrency',
    int(
      1,
      4_096,
      32,
      'Imports and exports in flight at once per worker process, apart from the job slots (QUIRE_WORKER_CONCURRENCY).',
    ),
  ),
  QUIRE_TRANSFER_MAX_PER_ACCOUNT: setting(
    'maxPerAccount',
    int(1, 4_096, 8, 'Of those, how many one account may have at once; its others wait their turn.'),
  ),
  QUIRE_TRANSFERS_ALLOW_PRIVATE: setting(
    'allowPrivate',
    Type.Boolean({
      default: false,
      description:
        'Allow `file_url` imports and `export` uploads to loopback, private and link-local addresses (development and tests only: SSRF). A job’s `webhook_url` follows QUIRE_WEBHOOKS_ALLOW_PRIVATE.',
    }),
  ),
  QUIRE_BATCH_MAX_JOBS: setting(
    'batchMaxJobs',
    int(1, 1_000, 100, 'Files (uploads and `file_url`s) one batch may hold; each becomes a job.'),
  ),
} satisfies Section;
