// Server-wide limits on one job and one upload, upper bounds over every plan: `config.limits`.
import { Type } from '@sinclair/typebox';
import { ConfigError, int, type Section, type SectionValues, setting } from '../section.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const limits = {
  QUIRE_JOB_MAX_PAGES: setting(
    'maxPages',
    int(
      1,
      1_000_000,
      5_000,
      'Most pages per job for every plan (a plan’s `max_pages` applies below it); above: `limit_pages_exceeded`.',
    ),
  ),
  QUIRE_ENGINE_TIMEOUT_MS: setting(
    'engineTimeoutMs',
    int(1_000, 86_400_000, 600_000, 'Wall time of one engine run before it is killed (`timeout`).'),
  ),
  QUIRE_ENGINE_MEMORY_BYTES: setting(
    'engineMemoryBytes',
    int(64 * MiB, 256 * GiB, 2 * GiB, 'Address-space cap of one engine process (`engine_memory_exceeded`).'),
  ),
  QUIRE_QPDF_FORKSERVER: setting(
    'qpdfForkServer',
    Type.Boolean({
      default: true,
      description:
        'Fork qpdf runs from the qpdf forkserver when it is built (about half the CPU of a small run); `false` starts qpdf anew for every run, each with its own address-space layout.',
    }),
  ),
  QUIRE_UPLOAD_MAX_FILE_BYTES: setting(
    'uploadMaxFileBytes',
    int(
      1,
      1024 * GiB,
      512 * MiB,
      'Largest single uploaded file, for every plan (a plan’s `max_file_bytes` applies below it).',
    ),
  ),
  QUIRE_UPLOAD_MAX_TOTAL_BYTES: setting(
    'uploadMaxTotalBytes',
    int(1, 1024 * GiB, 2 * GiB, 'Largest whole upload request (all files).'),
  ),
  QUIRE_UPLOAD_MAX_FILES: setting(
    'uploadMaxFiles',
    int(1, 1_000, 50, 'Most files in one job, for every plan (a plan’s `files_per_job` applies below it).'),
  ),
  QUIRE_UPLOAD_IDLE_TIMEOUT_MS: setting(
    'uploadIdleTimeoutMs',
    int(
      100,
      3_600_000,
      30_000,
      'A request body that sends no byte for this long is cut (408 `request_timeout`) and its partial upload deleted.',
    ),
  ),
  QUIRE_UPLOAD_MAX_CONCURRENT_PER_ACCOUNT: setting(
    'uploadMaxConcurrentPerAccount',
    int(
      1,
      100_000,
      8,
      'Job uploads one account may have in progress at once per API process; more get 429 `concurrent_uploads_exceeded`.',
    ),
  ),
} satisfies Section;

type Limits = SectionValues<typeof limits>;

/** A file cap above the request cap could never be reached: a mistake, refused at start. */
export function checkLimits(values: Limits): Limits {
  if (values.uploadMaxFileBytes > values.uploadMaxTotalBytes) {
    throw new ConfigError('QUIRE_UPLOAD_MAX_FILE_BYTES must not exceed QUIRE_UPLOAD_MAX_TOTAL_BYTES');
  }
  return values;
}
