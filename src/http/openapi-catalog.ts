// The parts of the OpenAPI document drawn from the tool catalogue and the job events: one options
// schema per tool (`CompressOptions`…), the multipart job and batch uploads with a working example per
// tool, and the Standard Webhooks events a job's state changes send (docs/api.md §6, docs/webhooks.md).
import { jobEventTypes } from '../model/job-event.js';
import type { ToolCatalog } from '../tools/lib/catalog.js';
import type { PublishedTool } from '../tools/lib/types.js';
import { MAX_STEPS } from './steps-field.js';

/** `page-numbers` → `PageNumbersOptions`: the component name of a tool's options schema. */
export function optionsComponentName(tool: string): string {
  return `${tool.replace(/(^|-)([a-z0-9])/g, (_m, _dash, c: string) => c.toUpperCase())}Options`;
}

export function toolOptionComponents(catalog: ToolCatalog): Record<string, unknown> {
  return Object.fromEntries(
    catalog
      .list()
      .map(({ tool }) => [
        optionsComponentName(tool.name),
        { ...tool.options, description: `Options of \`${tool.name}\` (${tool.title}).` },
      ]),
  );
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** What a job request's parts become on a batch: each `file` or `file_url` part, a job of its own. */
export type UploadKind = 'job' | 'batch';

const transferEncoding = { contentType: 'text/plain, application/json' };

/**
 * The job upload (and the batch upload, which reads the same parts): text parts first (tool or steps,
 * options, metadata, the transfer parts), then the files in order.
 */
export function jobUploadBody(catalog: ToolCatalog, kind: UploadKind = 'job'): Record<string, unknown> {
  const tools = catalog.list().map(({ tool }) => tool);
  const byTool = tools.map((t) => `\`${t.name}\` → ${optionsComponentName(t.name)}`).join(', ');
  const toolNames = tools.map((t) => t.name);
  const schema = {
    type: 'object',
    // Not a oneOf of `required`: generators (openapi-python-client, Scalar's form) lose the body's
    // own model over it, and the server refuses both or neither with 400 invalid_request anyway.
    description: 'Either `tool` (with `options`) or `steps`, never both; one of them is required.',
    properties: {
      tool: {
        type: 'string',
        enum: toolNames,
        description: 'A tool from `listTools`. Required unless `steps` is sent.',
      },
      options: {
        description: `A JSON object valid against the options schema of the tool named in \`tool\`: ${byTool}. Omitted means \`{}\`; defaults are filled in.`,
        anyOf: tools.map((t) => ref(optionsComponentName(t.name))),
      },
      steps: stepsPart(toolNames),
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
      ...(kind === 'job' ? { upload_id: uploadIdPart } : {}),
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
          metadata: { contentType: 'application/json' },
          file_url: transferEncoding,
          ...(kind === 'job' ? { export: transferEncoding } : {}),
          webhook_url: { contentType: 'text/plain' },
          file: { contentType: 'application/octet-stream' },
          ...(kind === 'job' ? { upload_id: { contentType: 'text/plain' } } : {}),
        },
        examples: uploadExamples(tools),
      },
    },
  };
}

/** Finished resumable uploads taken as inputs (docs/api.md "Resumable uploads"). */
const uploadIdPart = {
  type: 'array',
  description:
    'Finished resumable uploads (`createUpload`), each taking its place among the `file` parts in order. The upload is moved into the job and is gone afterwards; an unfinished one is 409 `upload_incomplete`.',
  items: { type: 'string', pattern: '^upl_[0-9A-HJKMNP-TV-Z]{26}$' },
};

/** The `steps` part: the tools to run in order, each step's options checked against its own tool's schema. */
function stepsPart(toolNames: readonly string[]): Record<string, unknown> {
  return {
    type: 'array',
    minItems: 1,
    maxItems: MAX_STEPS,
    description:
      "Instead of `tool` and `options`: the tools to run in order, each on the previous step's output (docs/api.md §2). Secret options only on the first step.",
    items: {
      type: 'object',
      required: ['tool'],
      additionalProperties: false,
      properties: {
        tool: { type: 'string', enum: toolNames },
        options: {
          type: 'object',
          description: "Valid against the step's tool's options schema, as `options`.",
        },
      },
    },
  };
}

/** `file_url`, `export` (one job only) and `webhook_url`: URLs the worker, not the API, connects to. */
function transferParts(kind: UploadKind): Record<string, unknown> {
  return {
    file_url: {
      type: 'array',
      description:
        'Inputs the worker fetches, each taking its place among the `file` parts: a plain URL, or JSON `TransferSource` for a link that needs headers. Every address it connects to must be public.',
      items: { oneOf: [{ type: 'string', format: 'uri', maxLength: 8192 }, ref('TransferSource')] },
    },
    ...(kind === 'job'
      ? {
          export: {
            description:
              'A presigned PUT URL the worker uploads the result to (plain, or JSON `ExportTarget`); the job succeeds once it answers 2xx.',
            oneOf: [{ type: 'string', format: 'uri', maxLength: 8192 }, ref('ExportTarget')],
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
function uploadExamples(tools: readonly PublishedTool[]): Record<string, unknown> {
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

const eventTitles: Record<string, string> = {
  'job.created': 'A job was created (status `queued`)',
  'job.processing': 'A worker started the job',
  'job.succeeded': 'The job succeeded; its result can be downloaded',
  'job.failed': 'The job failed; `data.error` says why',
  'job.canceled': 'The job was canceled',
};

const eventComponentName = (type: string) =>
  `${type.replace(/(^|[.-])([a-z])/g, (_m, _sep, c: string) => c.toUpperCase())}Event`;

/** The event bodies as components: one per type, and `JobEvent`, their union on `type`. */
export function eventComponents(): Record<string, unknown> {
  const perType = Object.fromEntries(
    jobEventTypes.map((type) => [
      eventComponentName(type),
      {
        type: 'object',
        required: ['type', 'timestamp', 'data'],
        properties: {
          type: { type: 'string', const: type },
          timestamp: { type: 'string', format: 'date-time', description: 'When the event happened.' },
          data: ref('Job'),
        },
      },
    ]),
  );
  return {
    ...perType,
    JobEvent: {
      description: 'Any job event. Receivers must ignore types they do not know.',
      oneOf: jobEventTypes.map((type) => ref(eventComponentName(type))),
      discriminator: {
        propertyName: 'type',
        mapping: Object.fromEntries(
          jobEventTypes.map((type) => [type, `#/components/schemas/${eventComponentName(type)}`]),
        ),
      },
    },
  };
}

const signatureHeaders = [
  {
    name: 'webhook-id',
    description: 'The message id (`msg_…`), the same on every attempt: dedupe on it.',
  },
  { name: 'webhook-timestamp', description: 'Unix seconds of this attempt; refuse old ones.' },
  {
    name: 'webhook-signature',
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` over `id.timestamp.body` with the endpoint secret; two during a secret rotation.',
  },
].map(({ name, description }) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
}));

/** The `webhooks` section: what Quire POSTs to a registered endpoint, per event type. */
export function webhookEvents(): Record<string, unknown> {
  return Object.fromEntries(
    jobEventTypes.map((type) => [
      type,
      {
        post: {
          operationId: `on${eventComponentName(type).replace(/Event$/, '')}`,
          tags: ['Webhooks'],
          summary: eventTitles[type] ?? type,
          description:
            'Sent to every enabled endpoint subscribed to this type (or `*`), signed as Standard Webhooks specifies. Delivery is at least once; see docs/webhooks.md for verification.',
          security: [],
          parameters: signatureHeaders,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref(eventComponentName(type)) } },
          },
          responses: {
            '2XX': { description: 'Delivered (within 15 s).' },
            '410': { description: 'The endpoint is disabled; no further deliveries.' },
            default: { description: 'Retried over about three days; redirects are failures.' },
          },
        },
      },
    ]),
  );
}
