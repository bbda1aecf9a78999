// Route schemas for the admin account API: they validate bodies and params and feed the OpenAPI
// document. Plan names are checked against the configuration in the handler, not here.
import { Type } from '@sinclair/typebox';
import { planFieldNames } from '../../config/plans.js';
import { allScopes } from '../../model/account.js';
import { json, noContent, problem, ref } from './common-schemas.js';

const tags = ['Accounts'];
const time = (description?: string) => Type.String({ format: 'date-time', description });
const list = (item: string) =>
  Type.Object({ object: Type.Literal('list'), data: Type.Array(ref(item)), has_more: Type.Boolean() });

const PlanSchema = Type.Object(
  {
    name: Type.String(),
    ...Object.fromEntries(planFieldNames.map((field) => [field, Type.Integer()])),
  },
  { description: 'A plan’s own limits, before the server-wide caps (docs/api.md §5).' },
);

const ApiKeyProperties = {
  id: Type.String({ description: '`key_` + ULID.' }),
  object: Type.Literal('api_key'),
  account: Type.String({ description: 'The account id.' }),
  key_id: Type.String({ description: 'The public part of the key (8 characters).' }),
  name: Type.String(),
  scopes: Type.Array(ref('Scope')),
  mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
  created_at: time(),
  expires_at: Type.Optional(time()),
  revoked_at: Type.Optional(time()),
};

export const accountComponents = {
  Scope: Type.Unsafe({ type: 'string', enum: [...allScopes] }),
  Plan: PlanSchema,
  PlanList: list('Plan'),
  Account: Type.Object({
    id: Type.String({ description: '`acct_` + ULID.' }),
    object: Type.Literal('account'),
    name: Type.String(),
    plan: Type.String(),
    limits: ref('Plan'),
    created_at: time(),
  }),
  AccountList: list('Account'),
  ApiKey: Type.Object(ApiKeyProperties, { description: 'An API key, never its secret.' }),
  // Not `NewApiKey`: openapi-generator's Go client names ApiKey's constructor NewApiKey.
  ApiKeyWithSecret: Type.Object(
    {
      ...ApiKeyProperties,
      key: Type.String({
        description: 'The key itself, shown only in this answer (`[redacted]` in an Idempotency-Key replay).',
      }),
    },
    { description: 'A key just created, with its secret.' },
  ),
  ApiKeyList: list('ApiKey'),
};

const accountParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 64, description: 'Account id (`acct_…`).' } },
} as const;

const name = { type: 'string', minLength: 1, maxLength: 100 } as const;
/**
 * The plans this server has configured, as an enum, so generated clients and fuzzers see the choice;
 * the handler checks again (an unknown plan is 400 with the pointer `/plan` either way).
 */
const planOf = (plans: readonly string[]) =>
  ({
    type: 'string',
    enum: [...plans],
    description: 'A plan configured on this server (`listPlans`).',
  }) as const;
const notFound = problem(['not_found']);

export const accountSchemas = {
  list: {
    operationId: 'listAccounts',
    tags,
    summary: 'List accounts',
    description: 'Oldest first.',
    responses: { 200: json('Every account.', ref('AccountList')) },
  },
  get: {
    operationId: 'getAccount',
    tags,
    summary: 'Get an account',
    params: accountParams,
    responses: { 200: json('The account.', ref('Account')), 404: notFound },
  },
  createKey: {
    operationId: 'createApiKey',
    tags,
    summary: 'Create an API key',
    description: 'The key is shown only in this answer; the server keeps only an HMAC of its secret.',
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
    responses: {
      201: json('The key, with its secret.', ref('ApiKeyWithSecret'), ['Location']),
      404: notFound,
    },
  },
  listKeys: {
    operationId: 'listApiKeys',
    tags,
    summary: 'List an account’s API keys',
    description: 'Never their secrets.',
    params: accountParams,
    responses: { 200: json('The keys.', ref('ApiKeyList')), 404: notFound },
  },
  revokeKey: {
    operationId: 'revokeApiKey',
    tags,
    summary: 'Revoke an API key',
    description: 'The key answers 401 from then on.',
    params: {
      type: 'object',
      required: ['id', 'key_id'],
      properties: {
        id: accountParams.properties.id,
        key_id: { type: 'string', maxLength: 64, description: 'Key id (`key_…`).' },
      },
    },
    responses: { 204: noContent('Revoked.'), 404: notFound },
  },
  plans: {
    operationId: 'listPlans',
    tags,
    summary: 'List the plans',
    description: 'The configured plans and their limits.',
    responses: { 200: json('The plans.', ref('PlanList')) },
  },
} as const;

/** Create and update, whose `plan` is one of the plans configured (`Config.plans`). */
export function accountWriteSchemas(plans: readonly string[]) {
  const plan = planOf(plans);
  return {
    create: {
      operationId: 'createAccount',
      tags,
      summary: 'Create an account',
      description: '`plan` defaults to the server’s default plan; an unknown plan is 400.',
      body: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name, plan },
      },
      responses: { 201: json('The account.', ref('Account'), ['Location']) },
    },
    update: {
      operationId: 'updateAccount',
      tags,
      summary: 'Change an account’s name or plan',
      description: 'A new plan applies from the account’s next request.',
      params: accountParams,
      body: { type: 'object', additionalProperties: false, minProperties: 1, properties: { name, plan } },
      responses: { 200: json('The account.', ref('Account')), 404: notFound },
    },
  };
}
