// Route schemas for the admin account API: they validate bodies and params and feed the OpenAPI
// document. Plan names are checked against the configuration in the handler, not here.
import { allScopes } from '../../model/account.js';

const security: { [scheme: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const tags = ['accounts'];

const accountParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 64, description: 'Account id (`acct_…`).' } },
} as const;

const name = { type: 'string', minLength: 1, maxLength: 100 } as const;
const plan = { type: 'string', minLength: 1, maxLength: 40, description: 'A configured plan name.' } as const;

export const accountSchemas = {
  create: {
    tags,
    summary: 'Create an account (scope `admin`)',
    security,
    body: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: { name, plan },
    },
  },
  list: { tags, summary: 'List accounts (scope `admin`)', security },
  get: { tags, summary: 'Get an account (scope `admin`)', security, params: accountParams },
  update: {
    tags,
    summary: 'Change an account’s name or plan (scope `admin`)',
    security,
    params: accountParams,
    body: { type: 'object', additionalProperties: false, minProperties: 1, properties: { name, plan } },
  },
  createKey: {
    tags,
    summary: 'Create an API key under the account; the key is shown only in this response',
    security,
    params: accountParams,
    body: {
      type: 'object',
      required: ['scopes'],
      additionalProperties: false,
      properties: {
        name: { ...name, default: 'api' },
        scopes: {
          type: 'array',
          minItems: 1,
          uniqueItems: true,
          items: { type: 'string', enum: [...allScopes] },
        },
        mode: { type: 'string', enum: ['live', 'test'], default: 'live' },
        expires_in_days: { type: 'integer', minimum: 1, maximum: 3650 },
      },
    },
  },
  listKeys: {
    tags,
    summary: 'List the account’s API keys (never their secrets)',
    security,
    params: accountParams,
  },
  revokeKey: {
    tags,
    summary: 'Revoke an API key of the account',
    security,
    params: {
      type: 'object',
      required: ['id', 'key_id'],
      properties: {
        id: accountParams.properties.id,
        key_id: { type: 'string', maxLength: 64, description: 'Key id (`key_…`).' },
      },
    },
  },
  plans: { tags, summary: 'List the configured plans and their limits (scope `admin`)', security },
} as const;
