// How long results, download links and idempotent responses are kept: `config.retention`.
import { int, type Section, setting } from '../section.js';

const DAY = 86_400_000;

export const retention = {
  QUIRE_RESULT_RETENTION_MS: setting(
    'resultMs',
    int(
      1_000,
      365 * DAY,
      DAY,
      'Longest time results are kept after a job succeeds; a plan’s `result_retention_ms` applies below it.',
    ),
  ),
  QUIRE_JOB_RECORD_RETENTION_MS: setting(
    'jobRecordMs',
    int(
      1_000,
      3_650 * DAY,
      30 * DAY,
      'How long a job’s record is kept after it ended (or was deleted); the sweeper then deletes it with any files it still has, and the job is 404.',
    ),
  ),
  QUIRE_DOWNLOAD_LINK_TTL_MS: setting(
    'downloadLinkTtlMs',
    int(10_000, 7 * DAY, 900_000, 'Lifetime of a temporary download link.'),
  ),
  QUIRE_IDEMPOTENCY_RETENTION_MS: setting(
    'idempotencyMs',
    int(
      60_000,
      30 * DAY,
      DAY,
      'How long an `Idempotency-Key` and its stored response are kept (docs/api.md §4: 24 h).',
    ),
  ),
} satisfies Section;
