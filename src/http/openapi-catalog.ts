// The parts of the OpenAPI document drawn from the tool catalogue and the job events: one options
// schema per tool (`CompressOptions`…), the multipart job upload with a working example per tool, and
// the Standard Webhooks events a job's state changes send (docs/api.md §6, docs/webhooks.md).
import { jobEventTypes } from '../model/job-event.js';
import type { ToolCatalog } from '../tools/lib/catalog.js';

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

/** The job upload: text parts first (tool, options, metadata), then the files in order. */
export function jobUploadBody(catalog: ToolCatalog): Record<string, unknown> {
  const tools = catalog.list().map(({ tool }) => tool);
  const byTool = tools.map((t) => `\`${t.name}\` → ${optionsComponentName(t.name)}`).join(', ');
  const schema = {
    type: 'object',
    required: ['tool'],
    properties: {
      tool: { type: 'string', enum: tools.map((t) => t.name), description: 'A tool from `listTools`.' },
      options: {
        description: `A JSON object valid against the options schema of the tool named in \`tool\`: ${byTool}. Omitted means \`{}\`; defaults are filled in.`,
        anyOf: tools.map((t) => ref(optionsComponentName(t.name))),
      },
      metadata: {
        type: 'object',
        description: 'Up to 16 string pairs (keys 1–40 characters, values up to 500), shown on the job.',
        maxProperties: 16,
        propertyNames: { minLength: 1, maxLength: 40 },
        additionalProperties: { type: 'string', maxLength: 500 },
      },
      file: {
        type: 'array',
        description:
          'The input files, in order: one `file` part each. How many and which types each tool takes: `listTools` (`inputs`).',
        items: { type: 'string', format: 'binary' },
      },
    },
  };
  // A form pre-filled from the first example has one file field: tools needing the fewest files first.
  const byFiles = [...tools].sort((a, b) => a.inputs.minFiles - b.inputs.minFiles);
  const examples = Object.fromEntries(
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
  return {
    required: true,
    description:
      'Send `tool`, `options` and `metadata` before the files, so a bad tool or bad options are refused before the upload is read.',
    content: {
      'multipart/form-data': {
        schema,
        encoding: {
          options: { contentType: 'application/json' },
          metadata: { contentType: 'application/json' },
          file: { contentType: 'application/octet-stream' },
        },
        examples,
      },
    },
  };
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
