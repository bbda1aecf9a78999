// The `webhooks` section of the OpenAPI document: the Standard Webhooks events a job's state changes
// send (docs/api.md §6, docs/webhooks.md), and their bodies as components.
import { jobEventTypes } from '../model/job-event.js';

export const WEBHOOK_EVENTS_TAG = 'Webhook events';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

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
          // A tag of its own: openapi-generator writes one client file per tag, and these would
          // overwrite the Webhooks one (the endpoints' API).
          tags: [WEBHOOK_EVENTS_TAG],
          // What Quire sends, not an operation a client calls: openapi-generator skips it (its Python
          // and typescript-fetch templates write webhook operations that do not compile). Scalar
          // hides it as well; docs/webhooks.md describes the events.
          'x-internal': true,
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
