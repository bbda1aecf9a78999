// Maps whatever a tool run threw to the job's public error, and classifies codes so that user-caused
// failures are logged quietly and system faults loudly. The switch is exhaustive over the catalogue:
// a new code does not compile until it is classified.
import type { ErrorCode } from '../errors/catalogue.js';
import { QuireError } from '../errors/quire-error.js';
import type { JobError } from '../model/job.js';

export type FailureKind = 'input' | 'limit' | 'engine' | 'system' | 'request';

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
    case 'invalid_request':
    case 'unknown_tool':
    case 'tool_unavailable':
    case 'invalid_options':
    case 'invalid_metadata':
    case 'too_many_files':
    case 'missing_file':
    case 'invalid_cursor':
    case 'invalid_idempotency_key':
    case 'unauthenticated':
    case 'invalid_api_key':
    case 'insufficient_scope':
    case 'link_invalid':
    case 'not_found':
    case 'method_not_allowed':
    case 'not_acceptable':
    case 'job_not_ready':
    case 'job_failed':
    case 'job_canceled':
    case 'job_state_conflict':
    case 'recipe_not_found':
    case 'recipe_name_taken':
    case 'recipe_outdated':
    case 'webhook_url_not_allowed':
    case 'webhook_endpoint_disabled':
    case 'webhook_endpoint_limit_exceeded':
    case 'idempotency_key_in_use':
    case 'idempotency_key_reused':
    case 'result_expired':
    case 'payload_too_large':
    case 'range_not_satisfiable':
    case 'unsupported_media_type':
    case 'rate_limited':
    case 'storage_quota_exceeded':
    case 'queued_jobs_exceeded':
    case 'jobs_per_window_exceeded':
    case 'invalid_multipart':
    case 'request_timeout':
    case 'uri_too_long':
    case 'concurrent_uploads_exceeded':
    case 'too_many_streams':
    case 'upload_incomplete':
    case 'upload_offset_mismatch':
    case 'upload_expired':
    case 'tus_version_unsupported':
    case 'checksum_mismatch':
    case 'headers_too_large':
      return 'request';
  }
}

/** The job error for anything a tool threw; unknown errors become a generic `internal_error`. */
export function toJobError(error: unknown): JobError {
  const known =
    error instanceof QuireError
      ? error
      : new QuireError('internal_error', 'The job failed because of an internal error.');
  return { code: known.code, message: known.detail, retryable: known.retryable };
}
