// Every limit a job or batch request is read under, in one table: the caller's plan limits (made
// here from the account's), the fixed caps on what the text parts may hold (docs/api.md §2), and the
// multipart parser's own counts for POST /jobs and POST /batches, which share one field-read cap.
import type { AccountLimits } from '../../config/plans.js';

/** The caller's plan limits, already capped by the server-wide settings (docs/api.md §5). */
export interface RequestLimits {
  maxFileBytes: number;
  maxTotalBytes: number;
  maxFiles: number;
  /** The plan's pages and fan-out, which a chain's least output is checked against (least-output.ts). */
  maxPages: number;
  job: { maxFanOut: number };
  /** Named in the 413 so the client knows which limit it hit (docs/api.md §5). */
  plan: string;
  /** QUIRE_WEBHOOKS_ALLOW_PRIVATE, for a `webhook_url` part. */
  allowPrivateWebhooks?: boolean;
}

/** A batch's limits: a job's, and how many jobs (one per item part) it may hold. */
export interface BatchLimits extends RequestLimits {
  maxJobs: number;
}

/** What reading a request may use of the account's limits, and the webhook setting it applies. */
export function requestLimits(account: AccountLimits, allowPrivateWebhooks: boolean): RequestLimits {
  return {
    maxFileBytes: account.maxFileBytes,
    maxTotalBytes: account.maxTotalBytes,
    maxFiles: account.maxFiles,
    maxPages: account.maxPages,
    job: { maxFanOut: account.job.maxFanOut },
    plan: account.plan.name,
    allowPrivateWebhooks,
  };
}

/** docs/api.md's cap on a text part however it is sent (plain field, JSON-typed field or file). */
export const TEXT_PART_MAX_BYTES = 64 * 1024;
/** Far deeper than any tool's options schema; deep enough that nothing recursive is at risk. */
export const JSON_MAX_DEPTH = 32;
/**
 * What the multipart plugin reads of one field. Above the text-part cap so a JSON-typed part is
 * never cut before the plugin parses it (a cut one fails without its name); the cap is ours.
 */
export const FIELD_READ_MAX_BYTES = 4 * TEXT_PART_MAX_BYTES;

export const METADATA_MAX_PAIRS = 16;
export const METADATA_MAX_KEY = 40;
export const METADATA_MAX_VALUE = 500;

/** Enough for any real chain; each step is a full tool run on the job's lease. */
export const MAX_STEPS = 10;

/** A `file_url`, `export` or `webhook_url`: longer than any presigned URL we have met. */
export const MAX_URL_LENGTH = 8192;
/** Headers a `file_url` or `export` may carry for its link. */
export const MAX_TRANSFER_HEADERS = 20;

/** The @fastify/multipart limits a request is parsed under. */
export interface ParserLimits {
  fileSize: number;
  files: number;
  fields: number;
  fieldSize: number;
  parts: number;
  headerPairs: number;
}

/** Headers of one part: far more than any client sends. */
const PART_HEADER_PAIRS = 100;
/** Text parts of a job request: tool, options, steps, recipe, metadata, export, webhook_url and a few `file_url`. */
const JOB_FIELDS = 10;
/** Text parts of a batch besides its items (which may be `file_url` fields). */
const BATCH_EXTRA_PARTS = 20;

/** POST /jobs, registered for the app: the server-wide file limits, before the caller's plan is known. */
export function jobParserLimits(settings: {
  uploadMaxFileBytes: number;
  uploadMaxFiles: number;
}): ParserLimits {
  return {
    fileSize: settings.uploadMaxFileBytes,
    files: settings.uploadMaxFiles,
    fields: JOB_FIELDS,
    fieldSize: FIELD_READ_MAX_BYTES,
    parts: settings.uploadMaxFiles + JOB_FIELDS,
    headerPairs: PART_HEADER_PAIRS,
  };
}

/** POST /batches: the app's counts are per job, and a batch holds up to `maxJobs` items. */
export function batchParserLimits(limits: BatchLimits): ParserLimits {
  return {
    fileSize: limits.maxFileBytes,
    files: limits.maxJobs,
    fields: limits.maxJobs + BATCH_EXTRA_PARTS,
    fieldSize: FIELD_READ_MAX_BYTES,
    parts: limits.maxJobs + BATCH_EXTRA_PARTS,
    headerPairs: PART_HEADER_PAIRS,
  };
}
