// Maps whatever a tool run threw to the job's public error, and classifies codes so that user-caused
// failures are logged quietly and system faults loudly. The switch is exhaustive over the catalogue:
// a new code does not compile until it is classified.
import type { ErrorCode } from '../errors/catalogue.js';
import { QuireError } from '../errors/quire-error.js';
import type { JobError } from '../model/job.js';

export type FailureKind = 'input' | 'limit' | 'engine' | 'system' | 'request';

/**
 * Codes only a request is answered with, never a job's outcome (logged as `request`). With the
 * switch below they cover the catalogue: a code in neither does not compile.
 */
const requestCodes = [
  'invalid_request',
  'unknown_tool',
  'tool_unavailable',
  'invalid_options',
  'invalid_metadata',
  'too_many_files',
  'missing_file',
  'invalid_cursor',
  'invalid_idempotency_key',
  'unauthenticated',
  'invalid_api_key',
  'insufficient_scope',
  'link_invalid',
  'not_found',
  'method_not_allowed',
  'not_acceptable',
  'job_not_ready',
  'job_failed',
  'job_canceled',
  'job_state_conflict',
  'job_still_running',
  'recipe_not_found',
  'recipe_name_taken',
  'recipe_limit_exceeded',
  'recipe_outdated',
  'webhook_url_not_allowed',
  'webhook_endpoint_disabled',
  'webhook_endpoint_limit_exceeded',
  'idempotency_key_in_use',
  'idempotency_key_reused',
  'result_expired',
  'payload_too_large',
  'range_not_satisfiable',
  'unsupported_media_type',
  'rate_limited',
  'storage_quota_exceeded',
  'queued_jobs_exceeded',
  'jobs_per_window_exceeded',
  'invalid_multipart',
  'request_timeout',
  'uri_too_long',
  'concurrent_uploads_exceeded',
  'too_many_streams',
  'upload_incomplete',
  'upload_offset_mismatch',
  'upload_expired',
  'tus_version_unsupported',
  'checksum_mismatch',
  'headers_too_large',
] as const;
type RequestCode = (typeof requestCodes)[number];

export function failureKind(code: ErrorCode): FailureKind {
  switch (code) {
    case 'pdf_encrypted':
    case 'invalid_password':
    case 'office_encrypted':
    case 'pdf_corrupt':
    case 'page_range_invalid':
    case 'unsupported_file':
    case 'invalid_certificate':
    case 'import_failed':
    case 'import_too_large':
    case 'import_forbidden_address':
    case 'import_timeout':
    case 'export_failed':
    case 'xfa_not_supported':
    case 'form_fields_invalid':
      return 'input';
    case 'limit_pages_exceeded':
    case 'job_limit_exceeded':
    case 'limit_page_pixels_exceeded':
    case 'timeout':
    case 'engine_memory_exceeded':
    case 'redaction_matches_exceeded':
    case 'limit_form_fields_exceeded':
      return 'limit';
    case 'engine_failed':
    case 'engine_unavailable':
    case 'timestamp_failed':
      return 'engine';
    case 'worker_lost':
    case 'internal_error':
    case 'overloaded':
    case 'not_ready':
      return 'system';
    default:
      return requestKind(code);
  }
}

function requestKind(_code: RequestCode): FailureKind {
  return 'request';
}

/** The job error for anything a tool threw; unknown errors become a generic `internal_error`. */
export function toJobError(error: unknown): JobError {
  const known =
    error instanceof QuireError
      ? error
      : new QuireError('internal_error', 'The job failed because of an internal error.');
  return { code: known.code, message: known.detail, retryable: known.retryable };
}
