// Route schemas for /jobs: they validate params and queries and feed the OpenAPI document.
const jobIdParams = {
  type: 'object',
  required: ['id'],
  // No pattern: a malformed id is simply not found (404), like any unknown id.
  properties: { id: { type: 'string', maxLength: 64, description: 'Job id (`job_…`).' } },
} as const;

// Workflows (docs/api.md §2): steps and Prefer: wait on job creation, kept apart from the rest.
const workflowsDescription =
  "A `steps` part (JSON array of `{tool, options}`, 1–10) replaces `tool` and `options`: each step runs on the previous step's output. `Prefer: wait=N` holds the response until the job ends or N seconds pass (capped by QUIRE_PREFER_WAIT_MAX_S); `Preference-Applied` says the wait honoured.";

const security: { [scheme: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];

export const jobSchemas = {
  create: {
    tags: ['jobs'],
    summary: 'Create a job (multipart/form-data: tool, options, metadata, file…)',
    description: `Send the text parts first so that a bad tool or bad options are refused before the upload is read. Scope \`jobs:write\`. ${workflowsDescription}`,
    consumes: ['multipart/form-data'],
    security,
  },
  list: {
    tags: ['jobs'],
    summary: 'List jobs, newest first',
    security,
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        status: { type: 'string', enum: ['queued', 'processing', 'succeeded', 'failed', 'canceled'] },
        tool: { type: 'string', maxLength: 64 },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        starting_after: { type: 'string', pattern: '^job_[0-9A-HJKMNP-TV-Z]{26}$' },
      },
    },
  },
  get: {
    tags: ['jobs'],
    summary: 'Get a job; `?wait=N` holds the response until it ends or N seconds pass',
    security,
    params: jobIdParams,
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        wait: { type: 'integer', minimum: 0, maximum: 60, description: 'Seconds to long-poll (0–60).' },
      },
    },
  },
  download: {
    tags: ['jobs'],
    summary:
      'Redirect (302) to a temporary download link; JSON `{url, expires_at}` with Accept: application/json',
    security,
    params: jobIdParams,
  },
  cancel: { tags: ['jobs'], summary: 'Cancel a queued or running job', security, params: jobIdParams },
  remove: {
    tags: ['jobs'],
    summary: 'Delete a job with its input and result (cancels it if active)',
    security,
    params: jobIdParams,
  },
  events: {
    tags: ['jobs'],
    summary: 'Server-Sent Events of the job until it ends',
    security,
    params: jobIdParams,
  },
} as const;
