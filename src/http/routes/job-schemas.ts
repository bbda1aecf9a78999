// Route schemas for /jobs: they validate params and queries and feed the OpenAPI document; the job
// object they answer with is a component of its own (job-resource-schemas.ts).
import { jobStatuses } from '../../model/job.js';
import { type DocResponse, jobIdParams, json, noContent, problem, ref } from './common-schemas.js';
import { conditionalAnswers, ifNoneMatchHeader } from './job-answer.js';
import { jobRequestRefusals } from './job-request-refusals.js';
import { jobEventsSchema, streamRefusal } from './job-stream-schemas.js';
import { uploadIdRefusals } from './upload-schemas.js';

// Workflows (docs/api.md §2): steps and Prefer: wait on job creation, kept apart from the rest.
const workflowsDescription =
  "A `steps` part (JSON array of `{tool, options}`, 1–10) replaces `tool` and `options`: each step runs on the previous step's output. A `recipe` part (a saved recipe's name or id, optionally `@version`; `listRecipes`) replaces them too: the job runs that version's steps and records it in `recipe`. A `file_url` part takes an input's place (the worker fetches it); `export` names a presigned PUT URL for the result and `webhook_url` receives the job's end; a failed import or export fails the job (`import_failed`, `import_too_large`, `import_forbidden_address`, `import_timeout`, `export_failed`), never the request. `Prefer: wait=N` holds the response until the job ends or N seconds pass (capped by QUIRE_PREFER_WAIT_MAX_S); `Preference-Applied` says the wait honoured.";

const tags = ['Jobs'];
const jobAnswer = (description: string): DocResponse => json(description, ref('Job'));
const notFound = problem(['not_found']);

export const jobSchemas = {
  create: {
    operationId: 'createJob',
    tags,
    summary: 'Create a job',
    description:
      'Uploads the files and queues the tool run. The body is `multipart/form-data`: `tool`, then `options` and `metadata` (JSON objects), then one `file` part per input, in order. Send the text parts first so that a bad tool or bad options are refused before the upload is read (docs/api.md §2). ' +
      workflowsDescription,
    // Read part by part, never buffered: no Fastify body schema; openapi.ts documents the body.
    multipartBody: 'job',
    preferWait: true,
    responses: {
      201: json('The job: queued, or as it stands after a `Prefer: wait`.', ref('Job'), [
        'Location',
        'Preference-Applied',
      ]),
      ...jobRequestRefusals,
      ...uploadIdRefusals,
      // An `upload_id` or a `recipe` naming nothing of the account.
      404: problem(['not_found', 'recipe_not_found']),
    },
  },
  list: {
    operationId: 'listJobs',
    tags,
    summary: 'List jobs',
    description: 'The account’s jobs, newest first (by creation time, then id).',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        status: { type: 'string', enum: [...jobStatuses] },
        tool: {
          type: 'string',
          maxLength: 64,
          description: 'A tool name; an unknown one gives an empty list.',
        },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        starting_after: {
          type: 'string',
          pattern: '^job_[0-9A-HJKMNP-TV-Z]{26}$',
          description: 'The last job id of the previous page.',
        },
      },
    },
    responses: {
      200: json('A page of jobs.', ref('JobList')),
      400: problem(['invalid_request', 'invalid_cursor']),
    },
  },
  get: {
    operationId: 'getJob',
    tags,
    summary: 'Get a job',
    description:
      '`?wait=N` holds the answer until the job is terminal or N seconds pass; either way the answer is the job as it then is, so check `status`. A waiting request counts against the key’s and account’s open streams (429 `too_many_streams`), and answers 401 if its key is revoked meanwhile.',
    params: jobIdParams,
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        wait: { type: 'integer', minimum: 0, maximum: 60, description: 'Seconds to long-poll (0–60).' },
      },
    },
    headers: ifNoneMatchHeader,
    responses: {
      ...conditionalAnswers(jobAnswer('The job.')),
      404: notFound,
      429: streamRefusal,
    },
  },
  download: {
    operationId: 'getJobDownload',
    tags,
    summary: 'Get a temporary download link for the result',
    description:
      'Redirects (302) to a temporary link to the result; with an `Accept` header mentioning `application/json`, answers the link as JSON instead. The link needs no API key.',
    params: jobIdParams,
    responses: {
      200: json('The temporary link (when `Accept` mentions `application/json`).', ref('DownloadLink'), [
        'Cache-Control',
      ]),
      302: {
        description: 'Redirect to the temporary link.',
        headers: ['Location', 'Cache-Control'],
      } satisfies DocResponse,
      404: notFound,
      409: problem(['job_not_ready', 'job_failed', 'job_canceled']),
      410: problem(['result_expired']),
    },
  },
  cancel: {
    operationId: 'cancelJob',
    tags,
    summary: 'Cancel a job',
    description: 'A queued job is canceled at once; a running one is stopped. A terminal job is 409.',
    params: jobIdParams,
    responses: {
      200: jobAnswer('The job, now `canceled`.'),
      404: notFound,
      409: problem(['job_state_conflict']),
    },
  },
  remove: {
    operationId: 'deleteJob',
    tags,
    summary: 'Delete a job',
    description:
      'Cancels the job if it is active and deletes its input files and result now; from then on the job is 404.',
    params: jobIdParams,
    responses: { 204: noContent('Deleted.'), 404: notFound },
  },
  events: jobEventsSchema,
} as const;
