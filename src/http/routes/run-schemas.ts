// The OpenAPI answers of POST /api/v1/run (docs/api.md §2, "One request: POST /run"): the result's
// bytes as the one 2xx, so generated clients return a Blob, bytes or a file, and the job's outcome
// or the wait running out as problems naming the job.
import { type ErrorCode, errorCatalogue } from '../../errors/catalogue.js';
import { failureKind } from '../../jobs/failure.js';
import { type DocResponse, type HeaderName, problem } from './common-schemas.js';
import { jobRequestRefusals } from './job-request-refusals.js';
import { uploadIdRefusals } from './upload-schemas.js';

const jobHeaders = (required: boolean) =>
  ({
    'Quire-Job-Id': { description: 'The job the request created.', required, schema: { type: 'string' } },
    'Content-Location': {
      description: '`/api/v1/jobs/{id}`: the job, readable as any job (getJob, getJobDownload).',
      required,
      schema: { type: 'string' },
    },
  }) as const;

/** The codes a failed job can end with whose catalogue status is `status` (docs/errors.md, job errors). */
const jobOutcomes = (status: number): ErrorCode[] =>
  (Object.keys(errorCatalogue) as ErrorCode[]).filter(
    (code) => failureKind(code) !== 'request' && errorCatalogue[code].status === status,
  );

/** Refusals of the request merged with the job outcomes of the same status, naming the job. */
function answer(status: number, codes: ErrorCode[], headers: HeaderName[] = []): DocResponse {
  const refusals: Record<number, DocResponse> = { ...jobRequestRefusals, ...uploadIdRefusals };
  const all = [...new Set([...(refusals[status]?.codes ?? []), ...codes, ...jobOutcomes(status)])];
  const named = [
    ...new Set([...(refusals[status]?.headers ?? []), ...headers, 'Preference-Applied' as const]),
  ];
  return { ...problem(all, named), extraHeaders: jobHeaders(false) };
}

export const runSchema = {
  operationId: 'runJob',
  tags: ['Jobs'],
  summary: 'Run a job and answer with its result',
  description:
    'The same body as `createJob` (multipart: `tool` and `options`, `steps` or `recipe`, then the files). The answer waits until the job ends, up to QUIRE_PREFER_WAIT_MAX_S seconds (`Prefer: wait=N` may shorten it), and is the result itself: its bytes, content type, `Content-Length` and `Content-Disposition`, with `Quire-Job-Id` and `Content-Location` naming the job. A failed job answers its own `error.code` as a problem with `job_id`; a job still running when the wait ends answers 503 `job_still_running` with `Location` and `Retry-After`, and goes on: a retry with the same `Idempotency-Key` waits on the same job. For small, quick jobs; long ones are better followed with createJob, getJob or webhooks.',
  multipartBody: 'job',
  preferWait: true,
  responses: {
    200: {
      description: 'The result’s bytes, with its content type (`application/pdf`, `application/zip`, …).',
      headers: ['Preference-Applied', 'Cache-Control'],
      extraHeaders: {
        ...jobHeaders(true),
        'Content-Disposition': {
          description: '`attachment` with the result’s file name (`filename*` for non-ASCII names).',
          required: true,
          schema: { type: 'string' },
        },
        'X-Content-Type-Options': { description: '`nosniff`.', required: true, schema: { type: 'string' } },
      },
      content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
    } satisfies DocResponse,
    // A failed job answers its own `error.code` with the catalogue's status for it, under the
    // request's refusals of that status (a job failing `unsupported_file` is a 400 too).
    400: answer(400, []),
    // An `upload_id` or a `recipe` naming nothing of the account; a job deleted during the wait.
    404: answer(404, ['recipe_not_found']),
    408: answer(408, []),
    409: answer(409, ['job_canceled']),
    410: answer(410, ['result_expired']),
    413: answer(413, []),
    415: answer(415, []),
    422: answer(422, []),
    429: answer(429, ['too_many_streams'], ['Retry-After']),
    500: answer(500, []),
    503: answer(503, ['job_still_running'], ['Location', 'Retry-After']),
  },
} as const;
