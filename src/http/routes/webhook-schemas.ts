// Route schemas for /api/v1/webhooks (docs/api.md §6): they validate bodies, params and queries and feed
// the OpenAPI document. Whether a URL is an allowed target is checked in the handler (it resolves DNS).
import { jobEventTypes } from '../../model/job-event.js';

const security: { [scheme: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const tags = ['webhooks'];
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

export const webhookSchemas = {
  create: {
    tags,
    summary: 'Register a webhook endpoint; its signing secret is shown only in this response',
    security,
    body: {
      type: 'object',
      required: ['url', 'events'],
      additionalProperties: false,
      properties: { url, events, description: { ...description, default: '' } },
    },
  },
  list: { tags, summary: 'List the account’s webhook endpoints', security },
  get: { tags, summary: 'Get a webhook endpoint', security, params: endpointParams },
  update: {
    tags,
    summary: 'Change an endpoint’s URL, events or description, or disable / re-enable it',
    security,
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
    summary: 'Delete a webhook endpoint and its delivery log',
    security,
    params: endpointParams,
  },
  rotate: {
    tags,
    summary: 'Issue a new signing secret; the old one keeps signing during the grace period',
    security,
    params: endpointParams,
    body: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: {
        grace_period_seconds: {
          type: 'integer',
          minimum: 0,
          maximum: 30 * 86_400,
          description: 'How long the old secret still signs (default: the server setting, 24 h).',
        },
      },
    },
  },
  deliveries: {
    tags,
    summary: 'The endpoint’s deliveries, newest first, with every attempt',
    security,
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
    summary: 'Attempt a delivery again now (same `webhook-id`)',
    security,
    params: {
      type: 'object',
      required: ['id', 'msg_id'],
      properties: {
        id: endpointId,
        msg_id: { type: 'string', maxLength: 64, description: 'Message id (`msg_…`).' },
      },
    },
  },
} as const;
