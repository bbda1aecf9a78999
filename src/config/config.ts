// The one configuration schema: read from QUIRE_* variables once at start, validated, failing fast
// with the variable's name. Modules receive their section; nothing reads the environment later.
import os from 'node:os';
import path from 'node:path';
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parseS3Url } from '../blobs/s3-location.js';
import { isPlanVariable, loadPlans, type Plan } from './plans.js';

const MiB = 1024 * 1024;
/** Contract §6: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h — about three days in all. */
const DEFAULT_WEBHOOK_SCHEDULE = [
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
];
const GiB = 1024 * MiB;

const int = (min: number, max: number, def: number, description: string) =>
  Type.Integer({ minimum: min, maximum: max, default: def, description });

/** Every setting: variable name → schema (with default and description, rendered into the README). */
export const settings = {
  QUIRE_HOST: Type.String({
    default: '127.0.0.1',
    minLength: 1,
    description: 'Address the HTTP server binds to.',
  }),
  QUIRE_PORT: int(0, 65535, 8080, 'HTTP port.'),
  QUIRE_DATA_DIR: Type.String({
    default: './data',
    minLength: 1,
    description: 'Holds the SQLite file, local blobs, temp work dirs, the server secret and initial-api-key.',
  }),
  QUIRE_DATABASE_URL: Type.String({
    default: '',
    description:
      'sqlite://<path> (default `sqlite://$QUIRE_DATA_DIR/quire.db`) or postgres://user:password@host:5432/db for scale-out (any libpq URL, `?sslmode=require` included); see docs/deployment.md.',
  }),
  QUIRE_DATABASE_POOL_MAX: int(
    1,
    500,
    10,
    'PostgreSQL: most pooled connections per process (plus one for LISTEN). Ignored for SQLite.',
  ),
  QUIRE_STORAGE_URL: Type.String({
    default: '',
    description:
      'file://<dir> (default `file://$QUIRE_DATA_DIR/files`) or s3://<bucket>/<prefix>?region=…&endpoint=…&force_path_style=true, with credentials from the AWS chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, …); see docs/operations.md.',
  }),
  QUIRE_SECRET: Type.String({
    default: '',
    description:
      'Server secret (≥ 32 chars) for API-key hashing and download-link signing; shared by every API process. Default: generated once into `$QUIRE_DATA_DIR/server-secret`.',
  }),
  QUIRE_PUBLIC_BASE_URL: Type.String({
    default: '',
    description:
      'Absolute base for temporary download links (e.g. https://pdf.example.com); relative when empty.',
  }),
  QUIRE_LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info', description: 'pino log level.' },
  ),
  QUIRE_WORKER_CONCURRENCY: int(
    1,
    256,
    Math.max(1, os.availableParallelism()),
    'Jobs run at once per worker process (default: cores).',
  ),
  QUIRE_WORKER_POLL_MS: int(
    10,
    60_000,
    500,
    'How often an idle worker looks for work when not woken in-process.',
  ),
  QUIRE_JOB_LEASE_MS: int(
    1_000,
    3_600_000,
    30_000,
    'Lease on a claimed job; renewed at half. A worker silent this long loses the job.',
  ),
  QUIRE_JOB_MAX_STALLS: int(1, 100, 3, 'Lease expiries after which a job fails with `worker_lost`.'),
  QUIRE_SWEEP_INTERVAL_MS: int(100, 3_600_000, 5_000, 'How often expired leases and results are swept.'),
  QUIRE_JOB_MAX_PAGES: int(
    1,
    1_000_000,
    5_000,
    'Most pages per job for every plan (a plan’s `max_pages` applies below it); above: `limit_pages_exceeded`.',
  ),
  QUIRE_ENGINE_TIMEOUT_MS: int(
    1_000,
    86_400_000,
    600_000,
    'Wall time of one engine run before it is killed (`timeout`).',
  ),
  QUIRE_ENGINE_MEMORY_BYTES: int(
    64 * MiB,
    256 * GiB,
    2 * GiB,
    'Address-space cap of one engine process (`engine_memory_exceeded`).',
  ),
  QUIRE_OCR_TIMEOUT_MS: int(
    1_000,
    86_400_000,
    1_800_000,
    'Wall time of one OCR run (ocrmypdf with its Tesseract and Ghostscript children).',
  ),
  QUIRE_OFFICE_POOL_SIZE: int(1, 64, 2, 'LibreOffice instances kept running; conversions beyond it queue.'),
  QUIRE_OFFICE_RECYCLE_AFTER: int(
    1,
    100_000,
    50,
    'Conversions after which a LibreOffice instance is replaced (bounds leaked memory).',
  ),
  QUIRE_OFFICE_TIMEOUT_MS: int(
    1_000,
    86_400_000,
    1_800_000,
    'Wall time of one office conversion; past it the instance is killed and replaced (`timeout`).',
  ),
  QUIRE_BROWSER_POOL_SIZE: int(1, 64, 2, 'Headless Chromium instances kept running for html-to-pdf.'),
  QUIRE_BROWSER_RECYCLE_AFTER: int(
    1,
    100_000,
    50,
    'Pages printed after which a Chromium instance is replaced.',
  ),
  QUIRE_BROWSER_TIMEOUT_MS: int(
    1_000,
    3_600_000,
    120_000,
    'Wall time of one html-to-pdf print (load, scripts, PDF); past it the browser is killed (`timeout`).',
  ),
  QUIRE_UPLOAD_MAX_FILE_BYTES: int(
    1,
    1024 * GiB,
    512 * MiB,
    'Largest single uploaded file, for every plan (a plan’s `max_file_bytes` applies below it).',
  ),
  QUIRE_UPLOAD_MAX_TOTAL_BYTES: int(1, 1024 * GiB, 2 * GiB, 'Largest whole upload request (all files).'),
  QUIRE_UPLOAD_MAX_FILES: int(
    1,
    1_000,
    50,
    'Most files in one job, for every plan (a plan’s `files_per_job` applies below it).',
  ),
  QUIRE_UPLOAD_IDLE_TIMEOUT_MS: int(
    100,
    3_600_000,
    30_000,
    'A request body that sends no byte for this long is cut (408 `request_timeout`) and its partial upload deleted.',
  ),
  QUIRE_UPLOAD_MAX_CONCURRENT_PER_ACCOUNT: int(
    1,
    100_000,
    8,
    'Job uploads one account may have in progress at once per API process; more get 429 `concurrent_uploads_exceeded`.',
  ),
  QUIRE_RESULT_RETENTION_MS: int(
    1_000,
    365 * 86_400_000,
    86_400_000,
    'Longest time results are kept after a job succeeds; a plan’s `result_retention_ms` applies below it.',
  ),
  QUIRE_DOWNLOAD_LINK_TTL_MS: int(10_000, 7 * 86_400_000, 900_000, 'Lifetime of a temporary download link.'),
  QUIRE_PLANS_FILE: Type.String({
    default: '',
    description:
      'JSON file of plans (name → limits) merged over the built-in free/pro/business; `QUIRE_PLAN_<PLAN>_<FIELD>` variables override single values (docs/operations.md).',
  }),
  QUIRE_DEFAULT_PLAN: Type.String({
    default: 'free',
    minLength: 1,
    description: 'Plan of accounts created without one (`quire accounts create`, `POST /api/v1/accounts`).',
  }),
  QUIRE_AUTH_FAILURES_PER_MIN: int(
    1,
    100_000,
    30,
    'Failed authentications allowed per client IP per minute; then 429 before any key is checked.',
  ),
  QUIRE_IDEMPOTENCY_RETENTION_MS: int(
    60_000,
    30 * 86_400_000,
    86_400_000,
    'How long an `Idempotency-Key` and its stored response are kept (contract: 24 h).',
  ),
  QUIRE_WEBHOOK_RETRY_SCHEDULE_MS: Type.String({
    default: DEFAULT_WEBHOOK_SCHEDULE.join(','),
    pattern: '^0(,\\d+)*$',
    description:
      'Delay before each webhook attempt, comma-separated; starts with 0 (first attempt at once). After the last, the delivery fails. ±15 % jitter.',
  }),
  QUIRE_WEBHOOK_TIMEOUT_MS: int(1_000, 60_000, 15_000, 'Time a webhook receiver has to answer 2xx.'),
  QUIRE_WEBHOOK_CONCURRENCY: int(
    1,
    64,
    4,
    'Webhook deliveries in flight per worker process (apart from job slots).',
  ),
  QUIRE_WEBHOOK_MAX_ENDPOINTS: int(
    1,
    1_000,
    20,
    'Webhook endpoints one account may register; every job event fans out to each subscribed one.',
  ),
  QUIRE_WEBHOOK_POLL_MS: int(
    10,
    60_000,
    1_000,
    'How often an idle webhook dispatcher looks for due deliveries.',
  ),
  QUIRE_WEBHOOK_ROTATION_GRACE_MS: int(
    0,
    30 * 86_400_000,
    86_400_000,
    'After `rotate-secret`, how long the old secret still signs beside the new one.',
  ),
  QUIRE_WEBHOOK_DISABLE_AFTER_MS: int(
    60_000,
    365 * 86_400_000,
    5 * 86_400_000,
    'An endpoint whose deliveries fail continuously this long is disabled.',
  ),
  QUIRE_WEBHOOK_RETENTION_MS: int(
    3_600_000,
    365 * 86_400_000,
    30 * 86_400_000,
    'How long job events and their delivery logs are kept once no delivery is pending.',
  ),
  QUIRE_WEBHOOKS_ALLOW_PRIVATE: Type.Boolean({
    default: false,
    description:
      'Allow webhook URLs on loopback, private and link-local addresses (development and tests only: SSRF).',
  }),
} satisfies Record<string, TSchema>;

type Settings = { [K in keyof typeof settings]: Static<(typeof settings)[K]> };

export interface Config {
  http: { host: string; port: number; publicBaseUrl: string };
  dataDir: string;
  databaseUrl: string;
  /** PostgreSQL pool size per process. */
  databasePoolMax: number;
  storageUrl: string;
  /** Empty means: use or create `$dataDir/server-secret`. */
  secret: string;
  logLevel: string;
  worker: {
    concurrency: number;
    pollMs: number;
    leaseMs: number;
    maxStalls: number;
    sweepIntervalMs: number;
  };
  limits: {
    maxPages: number;
    engineTimeoutMs: number;
    engineMemoryBytes: number;
    uploadMaxFileBytes: number;
    uploadMaxTotalBytes: number;
    uploadMaxFiles: number;
    uploadIdleTimeoutMs: number;
    uploadMaxConcurrentPerAccount: number;
  };
  retention: { resultMs: number; downloadLinkTtlMs: number; idempotencyMs: number };
  /** Plan name → limits; an account's limits are its plan's, capped by the server-wide `limits`. */
  plans: Record<string, Plan>;
  defaultPlan: string;
  authFailuresPerMinute: number;
  tmpDir: string;
  webhooks: {
    retryScheduleMs: number[];
    timeoutMs: number;
    concurrency: number;
    pollMs: number;
    rotationGraceMs: number;
    disableAfterMs: number;
    retentionMs: number;
    maxEndpoints: number;
    allowPrivate: boolean;
  };
  /** The heavy engines' own limits and pools (OCR, LibreOffice, Chromium). */
  heavyEngines: {
    ocrTimeoutMs: number;
    office: { size: number; recycleAfter: number; timeoutMs: number };
    browser: { size: number; recycleAfter: number; timeoutMs: number };
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads, converts and validates every QUIRE_* variable; throws ConfigError naming the first bad one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(settings)) {
    const given = env[name];
    const value = given === undefined || given === '' ? schema.default : Value.Convert(schema, given);
    if (!Value.Check(schema, value)) {
      const first = Value.Errors(schema, value).First();
      throw new ConfigError(`${name}=${JSON.stringify(given)} is invalid: ${first?.message ?? 'bad value'}`);
    }
    raw[name] = value;
  }
  const s = raw as Settings;
  const unknown = Object.keys(env).filter(
    (k) => k.startsWith('QUIRE_') && !(k in settings) && !KNOWN_EXTRA.has(k) && !isPlanVariable(k),
  );
  if (unknown.length > 0)
    throw new ConfigError(`Unknown setting ${unknown.join(', ')} (see README "Configuration")`);
  if (s.QUIRE_SECRET !== '' && s.QUIRE_SECRET.length < 32) {
    throw new ConfigError('QUIRE_SECRET must be at least 32 characters');
  }

  const dataDir = path.resolve(s.QUIRE_DATA_DIR);
  const databaseUrl = s.QUIRE_DATABASE_URL || `sqlite://${path.join(dataDir, 'quire.db')}`;
  const storageUrl = s.QUIRE_STORAGE_URL || `file://${path.join(dataDir, 'files')}`;
  if (!/^(sqlite|postgres|postgresql):\/\//.test(databaseUrl)) {
    throw new ConfigError(
      `QUIRE_DATABASE_URL must start with sqlite:// or postgres:// (got scheme "${databaseUrl.split(':')[0]}")`,
    );
  }
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
  if (s.QUIRE_UPLOAD_MAX_FILE_BYTES > s.QUIRE_UPLOAD_MAX_TOTAL_BYTES) {
    throw new ConfigError('QUIRE_UPLOAD_MAX_FILE_BYTES must not exceed QUIRE_UPLOAD_MAX_TOTAL_BYTES');
  }
  let plans: Record<string, Plan>;
  try {
    plans = loadPlans(s.QUIRE_PLANS_FILE, env);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (!plans[s.QUIRE_DEFAULT_PLAN]) {
    throw new ConfigError(`QUIRE_DEFAULT_PLAN="${s.QUIRE_DEFAULT_PLAN}" is not a configured plan`);
  }

  return {
    http: {
      host: s.QUIRE_HOST,
      port: s.QUIRE_PORT,
      publicBaseUrl: s.QUIRE_PUBLIC_BASE_URL.replace(/\/$/, ''),
    },
    dataDir,
    databaseUrl,
    databasePoolMax: s.QUIRE_DATABASE_POOL_MAX,
    storageUrl,
    secret: s.QUIRE_SECRET,
    logLevel: s.QUIRE_LOG_LEVEL,
    worker: {
      concurrency: s.QUIRE_WORKER_CONCURRENCY,
      pollMs: s.QUIRE_WORKER_POLL_MS,
      leaseMs: s.QUIRE_JOB_LEASE_MS,
      maxStalls: s.QUIRE_JOB_MAX_STALLS,
      sweepIntervalMs: s.QUIRE_SWEEP_INTERVAL_MS,
    },
    limits: {
      maxPages: s.QUIRE_JOB_MAX_PAGES,
      engineTimeoutMs: s.QUIRE_ENGINE_TIMEOUT_MS,
      engineMemoryBytes: s.QUIRE_ENGINE_MEMORY_BYTES,
      uploadMaxFileBytes: s.QUIRE_UPLOAD_MAX_FILE_BYTES,
      uploadMaxTotalBytes: s.QUIRE_UPLOAD_MAX_TOTAL_BYTES,
      uploadMaxFiles: s.QUIRE_UPLOAD_MAX_FILES,
      uploadIdleTimeoutMs: s.QUIRE_UPLOAD_IDLE_TIMEOUT_MS,
      uploadMaxConcurrentPerAccount: s.QUIRE_UPLOAD_MAX_CONCURRENT_PER_ACCOUNT,
    },
    retention: {
      resultMs: s.QUIRE_RESULT_RETENTION_MS,
      downloadLinkTtlMs: s.QUIRE_DOWNLOAD_LINK_TTL_MS,
      idempotencyMs: s.QUIRE_IDEMPOTENCY_RETENTION_MS,
    },
    plans,
    defaultPlan: s.QUIRE_DEFAULT_PLAN,
    authFailuresPerMinute: s.QUIRE_AUTH_FAILURES_PER_MIN,
    tmpDir: path.join(dataDir, 'tmp'),
    webhooks: {
      retryScheduleMs: s.QUIRE_WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number),
      timeoutMs: s.QUIRE_WEBHOOK_TIMEOUT_MS,
      concurrency: s.QUIRE_WEBHOOK_CONCURRENCY,
      pollMs: s.QUIRE_WEBHOOK_POLL_MS,
      rotationGraceMs: s.QUIRE_WEBHOOK_ROTATION_GRACE_MS,
      disableAfterMs: s.QUIRE_WEBHOOK_DISABLE_AFTER_MS,
      retentionMs: s.QUIRE_WEBHOOK_RETENTION_MS,
      maxEndpoints: s.QUIRE_WEBHOOK_MAX_ENDPOINTS,
      allowPrivate: s.QUIRE_WEBHOOKS_ALLOW_PRIVATE,
    },
    heavyEngines: {
      ocrTimeoutMs: s.QUIRE_OCR_TIMEOUT_MS,
      office: {
        size: s.QUIRE_OFFICE_POOL_SIZE,
        recycleAfter: s.QUIRE_OFFICE_RECYCLE_AFTER,
        timeoutMs: s.QUIRE_OFFICE_TIMEOUT_MS,
      },
      browser: {
        size: s.QUIRE_BROWSER_POOL_SIZE,
        recycleAfter: s.QUIRE_BROWSER_RECYCLE_AFTER,
        timeoutMs: s.QUIRE_BROWSER_TIMEOUT_MS,
      },
    },
  };
}

/** Variables read by scripts rather than the service (the test command's set-up). */
const KNOWN_EXTRA = new Set(['QUIRE_SKIP_INSTALL']);
