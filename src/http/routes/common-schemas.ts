// Schema pieces every route's documentation shares: the problem document (docs/api.md §7) with the
// catalogue's codes, the response headers (§4, §5, §7), and helpers that build OpenAPI Response Objects.
import { type TSchema, Type } from '@sinclair/typebox';
import { type ErrorCode, errorCatalogue } from '../../errors/catalogue.js';

/** A reference to a component of the OpenAPI document (`components/schemas/<name>`). */
export const ref = (name: string): TSchema => Type.Unsafe({ $ref: `#/components/schemas/${name}` });

export const ErrorCodeSchema = Type.Unsafe<ErrorCode>({
  type: 'string',
  enum: Object.keys(errorCatalogue),
  description:
    'A stable code from the error catalogue (docs/errors.md). Within v1 codes are only added, so handle unknown ones as their HTTP status.',
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri', description: 'A stable URI per code.' }),
    title: Type.String(),
    status: Type.Integer({ description: 'The HTTP status code.' }),
    detail: Type.String(),
    instance: Type.Optional(
      Type.String({
        description:
          'The route template, never the raw path; `urn:quire:request:<request_id>` when no route matched.',
      }),
    ),
    code: ref('ErrorCode'),
    request_id: Type.String(),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          pointer: Type.Optional(Type.String({ description: 'JSON pointer into the request.' })),
          field: Type.Optional(Type.String({ description: 'A request part or header.' })),
          detail: Type.String(),
        }),
      ),
    ),
    job_status: Type.Optional(Type.String({ description: '409 on a job: its status (not `status`).' })),
    job_id: Type.Optional(
      Type.String({ description: 'runJob: the job the request created, which a problem does not undo.' }),
    ),
    required_scope: Type.Optional(Type.String({ description: '403: the scope the route needs.' })),
    accepts: Type.Optional(Type.Array(Type.String(), { description: 'unsupported_file: accepted types.' })),
    input_index: Type.Optional(
      Type.Integer({
        description:
          'unsupported_file: the refused input, 0-based among the file, file_url and upload_id parts.',
      }),
    ),
    min_files: Type.Optional(Type.Integer()),
    max_files: Type.Optional(Type.Integer()),
    max_endpoints: Type.Optional(Type.Integer()),
    upload_id: Type.Optional(
      Type.String({ description: 'upload_incomplete, upload_expired: the upload named.' }),
    ),
    limit_bytes: Type.Optional(Type.Integer({ description: '413: the limit that was exceeded.' })),
    pages: Type.Optional(Type.Integer({ description: 'limit_pages_exceeded: the pages counted.' })),
    limit_pages: Type.Optional(Type.Integer({ description: 'limit_pages_exceeded: the page limit.' })),
    stored_bytes: Type.Optional(
      Type.Integer({ description: 'storage_quota_exceeded: what the account stores now.' }),
    ),
    plan: Type.Optional(Type.String({ description: 'The caller’s plan.' })),
    limit: Type.Optional(
      Type.String({
        description:
          'Which limit: 429 `requests`, `failed_authentication`, `concurrent_uploads`, `concurrent_streams`, `queued_jobs`, `jobs_per_window`; 413 `stored_bytes`; 422 `job_limit_exceeded` `fan_out`, `output_bytes`, `work_bytes`, `engine_time`; 409 `recipe_limit_exceeded` `recipes`, `versions`.',
      }),
    ),
    policy: Type.Optional(Type.String()),
    quota: Type.Optional(Type.Integer()),
    window_seconds: Type.Optional(Type.Number()),
    retry_after_seconds: Type.Optional(Type.Integer()),
    resets_at: Type.Optional(Type.String({ format: 'date-time' })),
    higher_plan: Type.Optional(Type.String()),
    recipe: Type.Optional(
      Type.String({ description: 'recipe_outdated: the recipe version named (`name@version`).' }),
    ),
  },
  {
    description: 'RFC 9457 problem document. Members beyond these may be added within v1; switch on `code`.',
  },
);

const header = (schema: TSchema, description: string, required = false) => ({
  description,
  required,
  schema,
});

/** Response headers by name, referenced from responses as `#/components/headers/<name>`. */
export const responseHeaders = {
  'X-Request-Id': header(Type.String(), 'The request id (echoed if the request sent a valid one).', true),
  Location: header(Type.String(), 'Where the new resource lives (a relative path).', true),
  RateLimit: header(
    Type.String({ examples: ['"default";r=598;t=41'] }),
    'Requests left in the window and seconds until the quota is back (IETF RateLimit fields).',
  ),
  'RateLimit-Policy': header(
    Type.String({ examples: ['"default";q=600;w=60'] }),
    'The account’s quota and window.',
  ),
  'Retry-After': header(Type.Integer({ minimum: 0 }), 'Seconds to wait before trying again.'),
  'Idempotent-Replayed': header(
    Type.Literal('true'),
    'Present when this is the stored answer to an earlier request with the same Idempotency-Key.',
  ),
  'Preference-Applied': header(
    Type.String({ examples: ['wait=30'] }),
    'The `Prefer` preferences honoured (RFC 7240): `wait=N` with the wait applied.',
  ),
  'WWW-Authenticate': header(Type.String(), 'Always `Bearer realm="quire"`.', true),
  'Cache-Control': header(Type.String(), 'Never cached.'),
} as const;

export type HeaderName = keyof typeof responseHeaders;

export interface MediaType {
  schema: TSchema | Record<string, unknown>;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

/** An OpenAPI Response Object as routes declare it; `codes` lists the problem codes it can carry. */
export interface DocResponse {
  description: string;
  headers?: readonly HeaderName[];
  /** Headers specific to this response, inline. */
  extraHeaders?: Record<string, { description: string; required?: boolean; schema: unknown }>;
  content?: Record<string, MediaType>;
  codes?: readonly ErrorCode[];
}

export const json = (description: string, schema: TSchema, headers: HeaderName[] = []): DocResponse => ({
  description,
  headers,
  content: { 'application/json': { schema } },
});

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** An error answer: the shared Problem schema; the description names the codes it can carry. */
export const problem = (codes: ErrorCode[], headers: HeaderName[] = []): DocResponse => ({
  description: '',
  headers,
  codes,
  content: { [PROBLEM_MEDIA_TYPE]: { schema: ref('Problem') } },
});

export const noContent = (description: string): DocResponse => ({ description });

/** `{id}` of the /jobs/{id} routes. */
export const jobIdParams = {
  type: 'object',
  required: ['id'],
  // No pattern: a malformed id is simply not found (404), like any unknown id.
  properties: { id: { type: 'string', maxLength: 64, description: 'Job id (`job_…`).' } },
} as const;
