// The refusals reading a job request can answer (POST /jobs and POST /batches read their parts the
// same way, http/job-request/), plan limits and quotas included (docs/api.md §5).
import { type DocResponse, problem } from './common-schemas.js';

/** The refusals of a job request, shared by createBatch, which reads its parts the same way. */
export const jobRequestRefusals = {
  400: problem([
    'invalid_request',
    'unknown_tool',
    'tool_unavailable',
    'invalid_options',
    'invalid_metadata',
    'unsupported_file',
    'too_many_files',
    'missing_file',
    'webhook_url_not_allowed',
  ]),
  // A `recipe` part naming no recipe of the account (docs/api.md §13).
  404: problem(['recipe_not_found']),
  408: problem(['request_timeout']),
  413: problem(['payload_too_large', 'storage_quota_exceeded']),
  415: problem(['unsupported_media_type']),
  // A chain of steps that makes more than the plan allows even from a one-page input (api.md §5).
  // A saved recipe whose steps today's tools refuse (api.md §13).
  422: problem(['limit_pages_exceeded', 'job_limit_exceeded', 'recipe_outdated']),
  429: problem(
    ['concurrent_uploads_exceeded', 'queued_jobs_exceeded', 'jobs_per_window_exceeded'],
    ['Retry-After'],
  ),
} satisfies Record<number, DocResponse>;
