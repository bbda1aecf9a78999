// Route schemas for /batches: they validate params and feed the OpenAPI document.
const batchIdParams = {
  type: 'object',
  required: ['id'],
  // No pattern: a malformed id is simply not found (404), like any unknown id.
  properties: { id: { type: 'string', maxLength: 64, description: 'Batch id (`bat_…`).' } },
} as const;

const security: { [scheme: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];

export const batchSchemas = {
  create: {
    tags: ['batches'],
    summary: 'Create a batch (multipart/form-data: tool, options, metadata, file… and/or file_url…)',
    description:
      'Each `file` or `file_url` part becomes one job with the same tool, options and metadata. Scope `jobs:write`.',
    consumes: ['multipart/form-data'],
    security,
  },
  get: {
    tags: ['batches'],
    summary: 'Get a batch: counts by status, progress and its jobs',
    security,
    params: batchIdParams,
  },
  cancel: {
    tags: ['batches'],
    summary: 'Cancel every active job of the batch',
    security,
    params: batchIdParams,
  },
  download: {
    tags: ['batches'],
    summary: 'One ZIP of every succeeded result of the batch (streamed)',
    security,
    params: batchIdParams,
  },
} as const;
