// JSON Schema of the GET /api/v1/tools body (docs/api.md §3), a component of the OpenAPI document so
// clients can generate types for the catalogue. Objects stay open: v1 only adds fields (§8).
import { Type } from '@sinclair/typebox';
import { ref } from './routes/common-schemas.js';

const ToolSchema = Type.Object({
  name: Type.String({ pattern: '^[a-z][a-z0-9-]*$', description: 'Tool name (kebab-case).' }),
  title: Type.String(),
  description: Type.String(),
  group: Type.String({
    description: 'The heading the tool is listed under (`Other` when its definition names none).',
  }),
  keywords: Type.Array(Type.String(), {
    description: 'Other words people search for the tool by (synonyms).',
  }),
  inputs: Type.Object({
    min_files: Type.Integer({ minimum: 0 }),
    max_files: Type.Integer({ minimum: 1, description: 'The tool’s maximum, capped by the plan.' }),
    accepts: Type.Array(Type.String(), { minItems: 1, description: 'Accepted (sniffed) content types.' }),
  }),
  options_schema: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'JSON Schema of the `options` part; also components/schemas/<Tool>Options (e.g. CompressOptions).',
    },
  ),
  output: Type.Object({ content_type: Type.String() }),
  available: Type.Boolean(),
  reason: Type.Optional(Type.String({ description: 'Why the tool is unavailable (present only then).' })),
  engines: Type.Array(
    Type.Object({
      name: Type.String(),
      available: Type.Boolean(),
      version: Type.Optional(Type.String()),
      languages: Type.Optional(Type.Array(Type.String(), { description: 'Installed OCR languages.' })),
    }),
    { description: 'The programs that do the work on this server.' },
  ),
});

const CallerLimitsSchema = Type.Object(
  {
    plan: Type.String(),
    max_file_bytes: Type.Integer(),
    max_upload_bytes: Type.Integer(),
    max_files_per_job: Type.Integer(),
    max_pages_per_job: Type.Integer(),
    concurrent_jobs: Type.Integer(),
    requests_per_window: Type.Integer(),
    window_seconds: Type.Integer(),
    result_retention_seconds: Type.Integer(),
  },
  { description: 'The calling key’s limits: its plan’s numbers, each capped by the server-wide setting.' },
);

export const toolComponents = {
  Tool: ToolSchema,
  CallerLimits: CallerLimitsSchema,
  ToolList: Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(ref('Tool')),
    limits: ref('CallerLimits'),
  }),
};
