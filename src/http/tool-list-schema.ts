// JSON Schema of the GET /api/v1/tools body (docs/api.md §3), published in the OpenAPI document so
// clients can generate types for the catalogue. Objects stay open: v1 only adds fields (§8).
const toolSchema = {
  type: 'object',
  required: ['name', 'title', 'description', 'inputs', 'options_schema', 'output', 'available'],
  properties: {
    name: { type: 'string', pattern: '^[a-z][a-z0-9-]*$', description: 'Tool name (kebab-case).' },
    title: { type: 'string' },
    description: { type: 'string' },
    inputs: {
      type: 'object',
      required: ['min_files', 'max_files', 'accepts'],
      properties: {
        min_files: { type: 'integer', minimum: 0 },
        max_files: { type: 'integer', minimum: 1 },
        accepts: { type: 'array', minItems: 1, items: { type: 'string' } },
      },
    },
    options_schema: {
      type: 'object',
      description: 'JSON Schema of the `options` part; also components/schemas/Options_<tool>.',
    },
    output: {
      type: 'object',
      required: ['content_type'],
      properties: { content_type: { type: 'string' } },
    },
    available: { type: 'boolean' },
    reason: { type: 'string', description: 'Why the tool is unavailable (present only then).' },
    engines: {
      type: 'array',
      description: 'The programs that do the work on this server.',
      items: {
        type: 'object',
        required: ['name', 'available'],
        properties: {
          name: { type: 'string' },
          available: { type: 'boolean' },
          version: { type: 'string' },
          languages: { type: 'array', items: { type: 'string' }, description: 'Installed OCR languages.' },
        },
      },
    },
  },
} as const;

export const toolListSchema = {
  type: 'object',
  required: ['object', 'data'],
  properties: {
    object: { type: 'string', const: 'list' },
    data: { type: 'array', items: toolSchema },
    limits: {
      type: 'object',
      description: 'Upload and page limits that apply to the calling key.',
    },
  },
} as const;
