// Route schemas for /batches: they validate params and feed the OpenAPI document.
const batchIdParams = {
  type: 'object',
  required: ['id'],
  // No pattern: a malformed id is simply not found (404), like any unknown id.
  properties: { id: { type: 'string', maxLength: 64, description: 'Batch id (`bat_…`).' } },
} as const;

export const batchSchemas = {
  create: {
    tags: ['Jobs'],
    summary: 'Create a batch (multipart/form-data: tool, options, metadata, file… and/or file_url…)',
    description:
      'Each `file` or `file_url` part becomes one job with the same tool, options and metadata. Scope `jobs:write`.',
  },
  get: {
    tags: ['Jobs'],
    summary: 'Get a batch: counts by status, progress and its jobs',
    params: batchIdParams,
  },
  cancel: {
    tags: ['Jobs'],
    summary: 'Cancel every active job of the batch',
    params: batchIdParams,
  },
  download: {
    tags: ['Jobs'],
    summary: 'One ZIP of every succeeded result of the batch (streamed)',
    params: batchIdParams,
  },
} as const;
