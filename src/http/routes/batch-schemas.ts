// Route schemas for /batches (docs/api.md §11): they validate params and feed the OpenAPI document,
// with the batch object as `batchView` builds it. The request is read as a job request is (its parts, refusals).
import { Type } from '@sinclair/typebox';
import { jobStatuses } from '../../model/job.js';
import { type DocResponse, json, problem, ref } from './common-schemas.js';
import { jobRequestRefusals } from './job-request-refusals.js';
import { uploadIdRefusals } from './upload-schemas.js';

const batchIdParams = {
  type: 'object',
  required: ['id'],
  // No pattern: a malformed id is simply not found (404), like any unknown id.
  properties: { id: { type: 'string', maxLength: 64, description: 'Batch id (`bat_…`).' } },
} as const;

const count = Type.Integer({ minimum: 0 });

export const BatchSchema = Type.Object(
  {
    id: Type.String({ description: '`bat_` + ULID.' }),
    object: Type.Literal('batch'),
    tool: Type.String({ description: 'The tool of its jobs (the first step’s, for jobs of several steps).' }),
    status: Type.Union([Type.Literal('processing'), Type.Literal('completed')], {
      description: '`processing` while any job is queued or processing, then `completed`.',
    }),
    total: Type.Integer({ minimum: 0, description: 'Its jobs now; deleted jobs drop out.' }),
    counts: Type.Object(Object.fromEntries(jobStatuses.map((s) => [s, count])), {
      description: 'Its jobs by status.',
    }),
    progress: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'The mean of its jobs’ progress, an ended job counting as 100 whatever its outcome.',
    }),
    created_at: Type.String({ format: 'date-time' }),
    links: Type.Object({
      self: Type.String(),
      download: Type.String({ description: 'The ZIP of the succeeded results; 409 while there is none.' }),
    }),
    jobs: Type.Array(ref('Job'), { description: 'Its jobs, in upload order.' }),
  },
  { description: 'A batch: one job per uploaded file, all with the same tool, options and metadata.' },
);

export const batchComponents = { Batch: BatchSchema };

const tags = ['Jobs'];
const notFound = problem(['not_found']);

export const batchSchemas = {
  create: {
    operationId: 'createBatch',
    tags,
    summary: 'Create a batch of jobs',
    description:
      'The body is a job request’s (`createJob`): `tool` (or `steps`, or `recipe`), `options`, `metadata` and `webhook_url` apply to every job, and each `file`, `file_url` or `upload_id` part becomes one job (at most QUIRE_BATCH_MAX_JOBS, together within the plan’s upload total). `export` is refused: a presigned URL names one object. Any refusal refuses the whole batch and stores nothing. Each job is an ordinary job of the account: plan limits, concurrency and fair claiming apply to each.',
    multipartBody: 'batch',
    responses: {
      201: json('The batch, its jobs queued.', ref('Batch'), ['Location']),
      ...jobRequestRefusals,
      ...uploadIdRefusals,
    },
  },
  get: {
    operationId: 'getBatch',
    tags,
    summary: 'Get a batch',
    description: 'Its counts by status, progress and jobs. Another account’s batch is 404.',
    params: batchIdParams,
    responses: { 200: json('The batch.', ref('Batch')), 404: notFound },
  },
  cancel: {
    operationId: 'cancelBatch',
    tags,
    summary: 'Cancel every active job of a batch',
    description: 'Queued and processing jobs are canceled; ended ones keep their outcome.',
    params: batchIdParams,
    responses: { 200: json('The batch after the cancellation.', ref('Batch')), 404: notFound },
  },
  download: {
    operationId: 'getBatchDownload',
    tags,
    summary: 'Download the results of a batch as one ZIP',
    description:
      'Every succeeded job’s result, stored uncompressed as `<nnn>-<result name>` by the job’s place in the batch; results past retention are left out. Streamed.',
    params: batchIdParams,
    responses: {
      200: {
        description: 'The ZIP.',
        headers: ['Cache-Control'],
        extraHeaders: {
          'Content-Disposition': {
            description: '`attachment; filename="<batch id>.zip"`.',
            required: true,
            schema: { type: 'string' },
          },
        },
        content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
      } satisfies DocResponse,
      404: notFound,
      409: problem(['job_not_ready']),
    },
  },
} as const;
