// The parts of the OpenAPI document drawn from the tool catalogue: one options schema per tool
// (`CompressOptions`…), a step of a chain (`ChainStep`), and the multipart job and batch requests with a
// working example per tool. docs/clients.md says how each client generator reads them.
import type { ToolCatalog } from '../tools/framework/catalog.js';
import type { PublishedTool } from '../tools/framework/types.js';
import { MAX_STEPS } from './job-request/limits.js';

/** `page-numbers` → `PageNumbersOptions`: the component name of a tool's options schema. */
export function optionsComponentName(tool: string): string {
  return `${tool.replace(/(^|-)([a-z0-9])/g, (_m, _dash, c: string) => c.toUpperCase())}Options`;
}

export function toolOptionComponents(catalog: ToolCatalog): Record<string, unknown> {
  const tools = catalog.list().map(({ tool }) => tool);
  return {
    ...Object.fromEntries(tools.map((tool) => [optionsComponentName(tool.name), publishedOptions(tool)])),
    ChainStep: chainStep(tools.map((t) => t.name)),
  };
}

/** Keywords that tie a tool's options to each other (protect: one of the two passwords; split: mode). */
const CROSS_FIELD = new Set(['anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else']);

/**
 * A tool's options as every client generator can model them: the object and its typed properties.
 * Rules across properties stay in the catalogue's `options_schema`, which the server validates
 * against: a `oneOf` of `required` makes openapi-python-client type the whole object as `Any`, and
 * typescript-fetch loses its enums. A map (`patternProperties`) becomes `additionalProperties`.
 */
function publishedOptions(tool: PublishedTool): Record<string, unknown> {
  const schema = tool.options as Record<string, unknown>;
  const kept = Object.entries(schema).filter(([key]) => !CROSS_FIELD.has(key));
  const ruled = kept.length < Object.keys(schema).length;
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return {
    ...Object.fromEntries(kept),
    properties: Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, asMap(p)])),
    description: `Options of \`${tool.name}\` (${tool.title}).${ruled ? ' Which options go together: the description of each, and `options_schema` in `getTool`.' : ''}`,
  };
}

/**
 * TypeBox's Record (`patternProperties: {"^(.*)$": …}`) as the map generators read. A value that is
 * a union (fill-form's string or boolean) is left untyped there: typescript-fetch converts a map of
 * union values as a map of objects, and throws on the options of every other tool.
 */
function asMap(property: Record<string, unknown>): Record<string, unknown> {
  const patterns = property.patternProperties as Record<string, unknown> | undefined;
  const value = patterns?.['^(.*)$'] as { anyOf?: { type?: string }[] } | undefined;
  if (value === undefined) return property;
  const { patternProperties: _, ...rest } = property;
  const union = value.anyOf?.map((member) => member.type).join(' or ');
  return { ...rest, additionalProperties: union ? { description: `A ${union}.` } : value };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** What a job request's parts become on a batch: each `file` or `file_url` part, a job of its own. */
export type RequestKind = 'job' | 'batch';

const transferEncoding = { contentType: 'text/plain, application/json' };

/**
 * The job request (and the batch request, which reads the same parts): text parts first (tool or steps,
 * options, metadata, the transfer parts), then the files in order.
 */
export function jobRequestBody(catalog: ToolCatalog, kind: RequestKind = 'job'): Record<string, unknown> {
  const tools = catalog.list().map(({ tool }) => tool);
  const byTool = tools.map((t) => `\`${t.name}\` → ${optionsComponentName(t.name)}`).join(', ');
  const toolNames = tools.map((t) => t.name);
  const schema = {
    type: 'object',
    // Not a oneOf of `required`: generators (openapi-python-client, Scalar's form) lose the body's
    // own model over it, and the server refuses both or neither with 400 invalid_request anyway.
    description: 'One of `tool` (with `options`), `steps` or `recipe`, never two; one of them is required.',
    properties: {
      tool: {
        type: 'string',
        enum: toolNames,
        description: 'A tool from `listTools`. Required unless `steps` is sent.',
      },
      options: {
        // `type` beside the union: orval serializes a part as JSON only when it is typed an object.
        type: 'object',
        description: `A JSON object valid against the options schema of the tool named in \`tool\`: ${byTool}. Omitted means \`{}\`; defaults are filled in.`,
        anyOf: tools.map((t) => ref(optionsComponentName(t.name))),
      },
      steps: stepsPart,
      recipe: {
        type: 'string',
        maxLength: 80,
        description:
          'Instead of `tool` or `steps`: a saved recipe (`listRecipes`) by id or name, optionally `@version` (`scan-cleanup@2`); without a version, the newest. Its steps are checked against today’s tools, and the job records the version in `recipe` (docs/api.md §13).',
      },
      metadata: {
        type: 'object',
        description: 'Up to 16 string pairs (keys 1–40 characters, values up to 500), shown on the job.',
        maxProperties: 16,
        propertyNames: { minLength: 1, maxLength: 40 },
        additionalProperties: { type: 'string', maxLength: 500 },
      },
      ...transferParts(kind),
      file: {
        type: 'array',
        description:
          kind === 'job'
            ? 'The input files, in order: one `file` part each. How many and which types each tool takes: `listTools` (`inputs`).'
            : 'One `file` part per job, in any mix with `file_url` parts: the batch holds one job per file, in upload order.',
        items: { type: 'string', format: 'binary' },
      },
      upload_id: kind === 'job' ? uploadIdPart : { ...uploadIdPart, description: batchUploadIds },
    },
  };
  return {
    required: true,
    description:
      kind === 'job'
        ? 'Send the text parts before the files, so a bad tool or bad options are refused before the upload is read.'
        : 'The parts of a job request, applied to every job; `export` is refused (a presigned URL names one object). Send the text parts before the files.',
    content: {
      'multipart/form-data': {
        schema,
        encoding: {
          options: { contentType: 'application/json' },
          steps: { contentType: 'application/json' },
          recipe: { contentType: 'text/plain' },
          metadata: { contentType: 'application/json' },
          file_url: transferEncoding,
          ...(kind === 'job' ? { export: transferEncoding } : {}),
          webhook_url: { contentType: 'text/plain' },
          file: { contentType: 'application/octet-stream' },
          upload_id: { contentType: 'text/plain' },
        },
        examples: requestExamples(tools),
      },
    },
  };
}

/** Finished resumable uploads taken as inputs (docs/api.md "Resumable uploads"). */
const uploadIdPart = {
  type: 'array',
  description:
    'Finished resumable uploads (`createUpload`), each taking its place among the `file` parts in order. The upload is moved into the job when the job is created and is gone afterwards; a refused request leaves it usable. An unfinished one is 409 `upload_incomplete`.',
  items: { type: 'string', pattern: '^upl_[0-9A-HJKMNP-TV-Z]{26}$' },
};

const batchUploadIds =
  'Finished resumable uploads (`createUpload`): one job each, in order among the `file` and `file_url` parts. Taken when the batch is created; a refused batch leaves them usable.';

/** A step of a chain: a tool and its options, checked against that tool's options schema. */
function chainStep(toolNames: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    required: ['tool'],
    additionalProperties: false,
    description: "A step of a chained job: the tool runs on the previous step's output.",
    properties: {
      tool: { type: 'string', enum: toolNames },
      options: {
        type: 'object',
        // Open: without it openapi-typescript types the object `Record<string, never>`.
        additionalProperties: true,
        description: "Valid against the step's tool's options schema, as `options`.",
      },
    },
  };
}

/**
 * The `steps` part: one part holding a JSON array of `ChainStep`. A string to generators, since every
 * one of them sends an array property as one part per item (the server reads one array).
 */
const stepsPart = {
  type: 'string',
  contentMediaType: 'application/json',
  contentSchema: { type: 'array', minItems: 1, maxItems: MAX_STEPS, items: ref('ChainStep') },
  description: `Instead of \`tool\` and \`options\`: a JSON array of 1–${MAX_STEPS} \`ChainStep\` (\`[{"tool":"rotate","options":{"angle":90}},{"tool":"compress"}]\`), the tools to run in order, each on the previous step's output (docs/api.md §2). The input \`password\` goes on the first step only; a later step's own secret options (protect's passwords) are scrubbed like the first's.`,
};

/**
 * A URL part that may instead hold a JSON object (`TransferSource`, `ExportTarget`): a string, whose
 * text is either. A `oneOf` of the two is sent as `[object Object]` by orval, and openapi-generator's
 * Java client takes a formatted string in it for a class of its own that does not compile.
 */
const urlOrJson = (component: string) => ({
  type: 'string',
  description: `A plain http(s) URL, or a \`${component}\` (components/schemas) as JSON text.`,
});

/** `file_url`, `export` (one job only) and `webhook_url`: URLs the worker, not the API, connects to. */
function transferParts(kind: RequestKind): Record<string, unknown> {
  return {
    file_url: {
      type: 'array',
      description:
        'Inputs the worker fetches, each taking its place among the `file` parts: a plain URL, or JSON `TransferSource` for a link that needs headers. Every address it connects to must be public.',
      items: urlOrJson('TransferSource'),
    },
    ...(kind === 'job'
      ? {
          export: {
            ...urlOrJson('ExportTarget'),
            description:
              'A presigned PUT URL the worker uploads the result to (plain, or JSON `ExportTarget` text); the job succeeds once it answers 2xx.',
          },
        }
      : {}),
    webhook_url: {
      type: 'string',
      format: 'uri',
      maxLength: 8192,
      description:
        "An http(s) URL on a public address that receives the job's end, signed with the job webhook secret (`getJobWebhookSecret`).",
    },
  };
}

/** A working request per tool. A form pre-filled from the first has one file field: fewest files first. */
function requestExamples(tools: readonly PublishedTool[]): Record<string, unknown> {
  const byFiles = [...tools].sort((a, b) => a.inputs.minFiles - b.inputs.minFiles);
  return Object.fromEntries(
    byFiles.map((t) => {
      const first = (t.options.examples as unknown[] | undefined)?.find(
        (e) => Object.keys(e as object).length > 0,
      );
      return [
        t.name,
        { summary: t.title, value: { tool: t.name, options: first ?? {}, metadata: { order: 'A-17' } } },
      ];
    }),
  );
}
