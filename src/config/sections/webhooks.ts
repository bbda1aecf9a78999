// Webhook delivery: retries, timeouts, dispatcher, endpoint limits and retention: `config.webhooks`.
import { Type } from '@sinclair/typebox';
import { int, type Section, setting } from '../section.js';

const DAY = 86_400_000;

/** docs/api.md §6: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h — about three days in all. */
const DEFAULT_RETRY_SCHEDULE = [
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
];

export const webhooks = {
  QUIRE_WEBHOOK_RETRY_SCHEDULE_MS: setting(
    'retryScheduleMs',
    Type.Transform(
      Type.String({
        default: DEFAULT_RETRY_SCHEDULE.join(','),
        pattern: '^0(,\\d+)*$',
        description:
          'Delay before each webhook attempt, comma-separated; starts with 0 (first attempt at once). After the last, the delivery fails. ±15 % jitter.',
      }),
    )
      .Decode((list) => list.split(',').map(Number))
      .Encode((delays) => delays.join(',')),
  ),
  QUIRE_WEBHOOK_TIMEOUT_MS: setting(
    'timeoutMs',
    int(1_000, 60_000, 15_000, 'Time a webhook receiver has to answer 2xx.'),
  ),
  QUIRE_WEBHOOK_CONCURRENCY: setting(
    'concurrency',
    int(1, 64, 4, 'Webhook deliveries in flight per worker process (apart from job slots).'),
  ),
  QUIRE_WEBHOOK_MAX_ENDPOINTS: setting(
    'maxEndpoints',
    int(
      1,
      1_000,
      20,
      'Webhook endpoints one account may register; every job event fans out to each subscribed one.',
    ),
  ),
  QUIRE_WEBHOOK_POLL_MS: setting(
    'pollMs',
    int(10, 60_000, 1_000, 'How often an idle webhook dispatcher looks for due deliveries.'),
  ),
  QUIRE_WEBHOOK_ROTATION_GRACE_MS: setting(
    'rotationGraceMs',
    int(0, 30 * DAY, DAY, 'After `rotate-secret`, how long the old secret still signs beside the new one.'),
  ),
  QUIRE_WEBHOOK_DISABLE_AFTER_MS: setting(
    'disableAfterMs',
    int(60_000, 365 * DAY, 5 * DAY, 'An endpoint whose deliveries fail continuously this long is disabled.'),
  ),
  QUIRE_WEBHOOK_RETENTION_MS: setting(
    'retentionMs',
    int(
      3_600_000,
      365 * DAY,
      30 * DAY,
      'How long job events and their delivery logs are kept once no delivery is pending.',
    ),
  ),
  QUIRE_WEBHOOKS_ALLOW_PRIVATE: setting(
    'allowPrivate',
    Type.Boolean({
      default: false,
      description:
        'Allow webhook URLs on loopback, private and link-local addresses (development and tests only: SSRF).',
    }),
  ),
} satisfies Section;
