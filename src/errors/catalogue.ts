// The one catalogue of stable error codes: HTTP status, public title and whether a retry can help.
// API responses (problem+json) and failed jobs both draw their codes from here (docs/api.md §2, §7).

export interface ErrorSpec {
  /** HTTP status when the code is answered to a request; jobs report it in `error.code` only. */
  readonly status: number;
  readonly title: string;
  /** Whether the same request or job could succeed if simply tried again. */
  readonly retryable: boolean;
}

export const errorCatalogue = {
  // Request errors.
  invalid_request: { status: 400, title: 'The request is malformed', retryable: false },
  unknown_tool: { status: 400, title: 'No tool has this name', retryable: false },
  tool_unavailable: { status: 400, title: 'The tool is not available on this server', retryable: false },
  invalid_options: { status: 400, title: 'The options are not valid for this tool', retryable: false },
  invalid_metadata: { status: 400, title: 'The metadata is not valid', retryable: false },
  unsupported_file: { status: 400, title: 'The file is not of a type this tool accepts', retryable: false },
  too_many_files: { status: 400, title: 'Too many files for this tool or plan', retryable: false },
  missing_file: { status: 400, title: 'The tool needs more input files', retryable: false },
  invalid_multipart: {
    status: 400,
    title: 'The multipart/form-data body is malformed',
    retryable: false,
  },
  invalid_cursor: { status: 400, title: 'The pagination cursor is not valid', retryable: false },
  invalid_idempotency_key: {
    status: 400,
    title: 'The Idempotency-Key header is malformed',
    retryable: false,
  },
  unauthenticated: { status: 401, title: 'An API key is required', retryable: false },
  invalid_api_key: { status: 401, title: 'The API key is not valid', retryable: false },
  insufficient_scope: {
    status: 403,
    title: 'The API key lacks the scope this operation needs',
    retryable: false,
  },
  link_invalid: { status: 403, title: 'The download link is invalid or has expired', retryable: false },
  not_found: { status: 404, title: 'Not found', retryable: false },
  method_not_allowed: { status: 405, title: 'Method not allowed', retryable: false },
  not_acceptable: { status: 406, title: 'Not acceptable', retryable: false },
  job_not_ready: { status: 409, title: 'The job has not finished yet', retryable: true },
  job_failed: { status: 409, title: 'The job failed and has no result', retryable: false },
  job_canceled: { status: 409, title: 'The job was canceled and has no result', retryable: false },
  job_state_conflict: { status: 409, title: 'The job is already in a terminal state', retryable: false },
  // POST /run (docs/api.md §2): the job goes on; 503 with Retry-After, so a retry with the same
  // Idempotency-Key (what SDKs and HTTP clients do with a 503) waits on the same job again.
  job_still_running: { status: 503, title: 'The job did not end within the wait', retryable: true },
  webhook_url_not_allowed: {
    status: 400,
    title: 'The webhook URL is not an allowed http(s) target',
    retryable: false,
  },
  webhook_endpoint_limit_exceeded: {
    status: 409,
    title: 'The account has as many webhook endpoints as allowed',
    retryable: false,
  },
  webhook_endpoint_disabled: {
    status: 409,
    title: 'The webhook endpoint is disabled',
    retryable: false,
  },
  // Recipes (docs/api.md §13).
  recipe_not_found: { status: 404, title: 'No recipe of this account has this name or id', retryable: false },
  recipe_name_taken: {
    status: 409,
    title: 'The account already has a recipe with this name',
    retryable: false,
  },
  recipe_limit_exceeded: {
    status: 409,
    title: 'The account keeps as many recipes, or the recipe as many versions, as allowed',
    retryable: false,
  },
  recipe_outdated: {
    status: 422,
    title: "The recipe's steps are no longer valid for the server's tools",
    retryable: false,
  },
  idempotency_key_in_use: {
    status: 409,
    title: 'A request with this Idempotency-Key is still in progress',
    retryable: true,
  },
  idempotency_key_reused: {
    status: 422,
    title: 'The Idempotency-Key was used for a different request',
    retryable: false,
  },
  upload_offset_mismatch: {
    status: 409,
    title: 'Upload-Offset is not where the upload stands',
    retryable: false,
  },
  upload_expired: { status: 410, title: 'The resumable upload expired', retryable: false },
  tus_version_unsupported: {
    status: 412,
    title: 'The request needs Tus-Resumable: 1.0.0',
    retryable: false,
  },
  checksum_mismatch: {
    status: 460,
    title: 'Upload-Checksum does not match the chunk',
    retryable: true,
  },
  upload_incomplete: {
    status: 409,
    title: 'The resumable upload has not received all its bytes',
    retryable: false,
  },
  request_timeout: {
    status: 408,
    title: 'The request was not received in time',
    retryable: true,
  },
  result_expired: { status: 410, title: 'The result was deleted or is past retention', retryable: false },
  payload_too_large: { status: 413, title: 'The upload is larger than allowed', retryable: false },
  uri_too_long: { status: 414, title: 'The request URL is too long', retryable: false },
  range_not_satisfiable: { status: 416, title: 'The requested range is not satisfiable', retryable: false },
  unsupported_media_type: {
    status: 415,
    title: 'The request body has an unsupported media type',
    retryable: false,
  },
  rate_limited: { status: 429, title: 'Too many requests', retryable: true },
  concurrent_uploads_exceeded: {
    status: 429,
    title: 'The account has as many uploads in progress as allowed',
    retryable: true,
  },
  // Per-account quotas of the plan (docs/api.md §5). Storage is 413: the bytes do not fit until the
  // account deletes files or they expire, so the same request soon after fails the same way.
  storage_quota_exceeded: {
    status: 413,
    title: 'The account stores as many bytes as its plan allows',
    retryable: false,
  },
  // The queue and the window free up by themselves as jobs finish or the window turns: 429.
  queued_jobs_exceeded: {
    status: 429,
    title: 'The account has as many jobs queued or processing as its plan allows',
    retryable: true,
  },
  jobs_per_window_exceeded: {
    status: 429,
    title: 'The account created as many jobs in this window as its plan allows',
    retryable: true,
  },
  too_many_streams: {
    status: 429,
    title: 'The key or account has as many event streams and long-polls open as allowed',
    retryable: true,
  },
  headers_too_large: {
    status: 431,
    title: 'The request headers are too large',
    retryable: false,
  },
  internal_error: { status: 500, title: 'Internal server error', retryable: true },
  overloaded: { status: 503, title: 'The service is overloaded', retryable: true },
  not_ready: { status: 503, title: 'The service is not ready', retryable: true },

  // Job outcome errors (job.error.code).
  pdf_encrypted: { status: 422, title: 'The PDF is encrypted and needs a password', retryable: false },
  invalid_password: { status: 422, title: 'The password does not open this PDF', retryable: false },
  office_encrypted: {
    status: 422,
    title: 'The office document is encrypted and needs a password',
    retryable: false,
  },
  pdf_corrupt: { status: 422, title: 'The PDF is damaged beyond repair', retryable: false },
  invalid_certificate: {
    status: 422,
    title: 'The signing certificate is not a readable PKCS#12 bundle',
    retryable: false,
  },
  // The TSA is a third party: it may answer again a moment later.
  timestamp_failed: { status: 422, title: 'The time-stamp authority gave no timestamp', retryable: true },
  page_range_invalid: {
    status: 422,
    title: 'The page selection does not fit the document',
    retryable: false,
  },
  xfa_not_supported: {
    status: 422,
    title: 'The form is an XFA form, which this tool cannot read or fill',
    retryable: false,
  },
  form_fields_invalid: {
    status: 422,
    title: 'Some values name no field of the form or do not fit their field',
    retryable: false,
  },
  limit_form_fields_exceeded: {
    status: 422,
    title: 'The form has more fields than a form tool reads',
    retryable: false,
  },
  redaction_matches_exceeded: {
    status: 422,
    title: 'The redaction texts and patterns match more often than max_matches allows',
    retryable: false,
  },
  limit_pages_exceeded: { status: 422, title: 'The document has more pages than allowed', retryable: false },
  limit_page_pixels_exceeded: {
    status: 422,
    title: 'A page is too large to render at this resolution',
    retryable: false,
  },
  job_limit_exceeded: {
    status: 422,
    title: 'The job passes a whole-job limit of the plan (output, fan-out, disk or engine time)',
    retryable: false,
  },
  timeout: { status: 422, title: 'The engine did not finish within its time limit', retryable: false },
  engine_memory_exceeded: { status: 422, title: 'The engine exceeded its memory limit', retryable: false },
  engine_failed: { status: 422, title: 'The engine could not process the document', retryable: false },
  engine_unavailable: { status: 503, title: 'The engine this tool needs is not installed', retryable: true },
  worker_lost: { status: 500, title: 'The job was abandoned by its worker too many times', retryable: true },
  // URL imports and exports (docs/api.md §2): the worker's transfers, outcomes of the job, never 5xx.
  import_failed: { status: 422, title: 'A file_url could not be fetched', retryable: true },
  import_too_large: {
    status: 422,
    title: 'A file_url serves more bytes than the plan allows',
    retryable: false,
  },
  import_forbidden_address: {
    status: 422,
    title: 'A file_url points to a non-public address',
    retryable: false,
  },
  import_timeout: { status: 422, title: 'A file_url did not arrive within the time limit', retryable: true },
  export_failed: {
    status: 422,
    title: 'The result could not be uploaded to the export URL',
    retryable: true,
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof errorCatalogue;

/** The public documentation URI of a code; stable for clients to switch on (docs/api.md §7). */
export function errorTypeUri(code: ErrorCode): string {
  return `https://quire.dev/errors/${code.replaceAll('_', '-')}`;
}
