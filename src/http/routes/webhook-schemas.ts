// Route schemas for /api/v1/webhooks (docs/api.md §6): they validate bodies, params and queries and feed
// the OpenAPI document. Whether a URL is an allowed target is checked in the handler (it resolves DNS).
import { type TSchema, Type } from '@sinclair/typebox';
import { jobEventTypes } from '../../model/job-event.js';
import { json, noContent, problem, ref } from './common-schemas.js';

const tags = ['Webhooks'];
const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

const endpointId = { type: 'string', maxLength: 64, description: 'Endpoint id (`whe_…`).' } as const;
const endpointParams = { type: 'object', required: ['id'], properties: { id: endpointId } } as const;

const url = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  description: 'http(s) URL on a public address; checked again on every delivery.',
} as const;
const events = {
  type: 'array',
  minItems: 1,
  maxItems: 20,
  uniqueItems: true,
  items: { type: 'string', enum: [...jobEventTypes, '*'] },
  description: 'Event types to receive, or `["*"]` for every type (including ones added later).',
} as const;
const description = { type: 'string', maxLength: 500 } as const;
const gracePeriod = {
  type: 'integer',
  minimum: 0,
  maximum: 30 * 86_400,
  description: 'How long the old secret still signs (default: the server setting, 24 h).',
} as const;

const time = (description?: string) => Type.String({ format: 'date-time', description });
const nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);

const EndpointProperties = {
  id: Type.String({ description: '`whe_` + ULID.' }),
  object: Type.Literal('webhook_endpoint'),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(Type.String(), { description: 'Event types, or `["*"]` for every type.' }),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  disabled_reason: Type.Optional(
    Type.String({ description: '`gone` (the receiver answered 410), `failing` or `manual`.' }),
  ),
  previous_secret_expires_at: Type.Optional(
    time('While the secret before the last rotation still signs: until when.'),
  ),
  created_at: time(),
  updated_at: time(),
};

const DeliverySchema = Type.Object({
  id: Type.String({ description: '`msg_` + ULID: the `webhook-id` of every attempt.' }),
  object: Type.Literal('webhook_delivery'),
  endpoint: Type.String(),
  event_type: ref('JobEventType'),
  job: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempt_count: Type.Integer({ minimum: 0 }),
  next_attempt_at: Type.Optional(time('Pending deliveries: the next attempt.')),
  created_at: time(),
  completed_at: Type.Optional(time()),
  attempts: Type.Array(
    Type.Object({
      attempted_at: Type.String({ format: 'date-time' }),
      status_code: nullable(Type.Integer({ description: 'The receiver’s status, when it answered.' })),
      latency_ms: Type.Integer({ minimum: 0 }),
      error_class: nullable(Type.String({ description: 'Null on success; e.g. `http_status`, `timeout`.' })),
      response_excerpt: nullable(Type.String({ description: 'The start of the response body.' })),
    }),
  ),
});

const list = (item: string) =>
  Type.Object({ object: Type.Literal('list'), data: Type.Array(ref(item)), has_more: Type.Boolean() });

export const webhookComponents = {
  // Named constants of their own: openapi-generator's Go client names both `job.failed` here and the
  // error code `job_failed` JOB_FAILED, in one package.
  JobEventType: Type.Unsafe({
    type: 'string',
    enum: [...jobEventTypes],
    'x-enum-varnames': jobEventTypes.map((type) => `JOB_EVENT_${type.slice('job.'.length).toUpperCase()}`),
  }),
  WebhookEndpoint: Type.Object(EndpointProperties),
  WebhookEndpointWithSecret: Type.Object(
    {
      ...EndpointProperties,
      secret: Type.String({
        description:
          'The signing secret (`whsec_…`), shown only in this answer (`[redacted]` in an Idempotency-Key replay).',
      }),
    },
    { description: 'An endpoint with its new signing secret.' },
  ),
  WebhookEndpointList: list('WebhookEndpoint'),
  JobWebhookSecret: Type.Object(
    {
      object: Type.Literal('job_webhook_secret'),
      secret: Type.String({
        description:
          'The secret (`whsec_…`) that signs per-job `webhook_url` deliveries (`[redacted]` in an Idempotency-Key replay).',
      }),
    },
    { description: 'The account’s job webhook secret: one per account, made on first use.' },
  ),
  WebhookDelivery: DeliverySchema,
  WebhookDeliveryList: list('WebhookDelivery'),
};

const endpointNotFound = problem(['not_found']);

export const webhookSchemas = {
  create: {
    tags,
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint',
    description:
      'The URL must be http(s) to a public address. The signing secret is shown only in this answer.',
    responses: {
      201: json('The endpoint with its signing secret.', ref('WebhookEndpointWithSecret'), ['Location']),
      400: problem(['invalid_request', 'webhook_url_not_allowed']),
      409: problem(['webhook_endpoint_limit_exceeded']),
    },
    body: {
      type: 'object',
      required: ['url', 'events'],
      additionalProperties: false,
      properties: { url, events, description: { ...description, default: '' } },
    },
  },
  list: {
    operationId: 'listWebhookEndpoints',
    tags,
    summary: 'List webhook endpoints',
    responses: { 200: json('The account’s endpoints.', ref('WebhookEndpointList')) },
  },
  get: {
    operationId: 'getWebhookEndpoint',
    tags,
    summary: 'Get a webhook endpoint',
    params: endpointParams,
    responses: { 200: json('The endpoint.', ref('WebhookEndpoint')), 404: endpointNotFound },
  },
  update: {
    tags,
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint',
    description: 'Its URL, events or description, or disable / re-enable it (`status`).',
    responses: {
      200: json('The endpoint.', ref('WebhookEndpoint')),
      400: problem(['invalid_request', 'webhook_url_not_allowed']),
      404: endpointNotFound,
    },
    params: endpointParams,
    body: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: { url, events, description, status: { type: 'string', enum: ['enabled', 'disabled'] } },
    },
  },
  remove: {
    tags,
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description: 'With its delivery log.',
    responses: { 204: noContent('Deleted.'), 404: endpointNotFound },
    params: endpointParams,
  },
  rotate: {
    tags,
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate a webhook endpoint’s signing secret',
    description: 'The old secret keeps signing (a second signature) during the grace period.',
    requestBodyOptional: true,
    responses: {
      200: json('The endpoint with its new signing secret.', ref('WebhookEndpointWithSecret')),
      404: endpointNotFound,
    },
    params: endpointParams,
    body: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: { grace_period_seconds: gracePeriod },
    },
  },
  deliveries: {
    tags,
    operationId: 'listWebhookDeliveries',
    summary: 'List a webhook endpoint’s deliveries',
    description: 'Newest first, with every attempt.',
    responses: { 200: json('A page of deliveries.', ref('WebhookDeliveryList')), 404: endpointNotFound },
    params: endpointParams,
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        starting_after: { type: 'string', pattern: `^msg_${ULID}$` },
      },
    },
  },
  retry: {
    tags,
    operationId: 'retryWebhookDelivery',
    summary: 'Retry a webhook delivery',
    description: 'Attempts the delivery again now, with the same `webhook-id`.',
    responses: {
      202: json('The delivery, pending again.', ref('WebhookDelivery')),
      404: problem(['not_found']),
      409: problem(['webhook_endpoint_disabled']),
    },
    params: {
      type: 'object',
      required: ['id', 'msg_id'],
      properties: {
        id: endpointId,
        msg_id: { type: 'string', maxLength: 64, description: 'Message id (`msg_…`).' },
      },
    },
  },
  jobWebhookSecret: {
    operationId: 'getJobWebhookSecret',
    tags,
    summary: 'Get the job webhook secret',
    description:
      'The secret that signs the deliveries to the `webhook_url` of jobs (docs/api.md §6); made on first use.',
    responses: { 200: json('The secret.', ref('JobWebhookSecret'), ['Cache-Control']) },
  },
  rotateJobWebhookSecret: {
    operationId: 'rotateJobWebhookSecret',
    tags,
    summary: 'Rotate the job webhook secret',
    description: 'Issues a new secret; the old one keeps signing beside it during the grace period.',
    requestBodyOptional: true,
    responses: { 200: json('The new secret.', ref('JobWebhookSecret'), ['Cache-Control']) },
    body: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: { grace_period_seconds: gracePeriod },
    },
  },
} as const;
