// /api/v1/accounts (scope `admin`, docs/api.md §1 and §5): operator management of accounts, their plan
// and their API keys. Keys are sub-resources of the account they belong to.
import type { FastifyInstance } from 'fastify';
import { ulid } from 'ulid';
import { createKey } from '../../auth/issue-key.js';
import type { Config } from '../../config/config.js';
import { planFor, planView } from '../../config/plans.js';
import { QuireError } from '../../errors/quire-error.js';
import type { Account, ApiKeyRecord, Scope } from '../../model/account.js';
import { rfc3339 } from '../../model/job-view.js';
import type { AppDeps } from '../deps.js';
import { accountSchemas, accountWriteSchemas } from './account-schemas.js';

type IdParams = { Params: { id: string } };
const DAY_MS = 86_400_000;

const admin = { scope: 'admin' } as const;

export function registerAccountRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerAccounts(app, deps);
  registerKeys(app, deps);
  app.get('/api/v1/plans', {
    config: admin,
    schema: accountSchemas.plans,
    handler: async () => ({
      object: 'list',
      data: Object.values(deps.config.plans).map(planView),
      has_more: false,
    }),
  });
}

function registerAccounts(app: FastifyInstance, deps: AppDeps): void {
  const { accounts } = deps.db;
  const view = (account: Account) => accountView(deps.config, account);
  const writes = accountWriteSchemas(Object.keys(deps.config.plans));

  app.post<{ Body: { name: string; plan?: string } }>('/api/v1/accounts', {
    config: admin,
    schema: writes.create,
    handler: async (request, reply) => {
      checkPlan(deps.config, request.body.plan);
      const account = await accounts.createAccount({
        id: `acct_${ulid()}`,
        name: request.body.name,
        plan: request.body.plan ?? deps.config.defaultPlan,
        createdAt: Date.now(),
      });
      return reply.code(201).header('Location', `/api/v1/accounts/${account.id}`).send(view(account));
    },
  });

  app.get('/api/v1/accounts', {
    config: admin,
    schema: accountSchemas.list,
    handler: async () => {
      const all = await accounts.listAccounts();
      return { object: 'list', data: all.map(view), has_more: false };
    },
  });

  app.get<IdParams>('/api/v1/accounts/:id', {
    config: admin,
    schema: accountSchemas.get,
    handler: async (request) => view(await loadAccount(deps, request.params.id)),
  });

  app.patch<IdParams & { Body: { name?: string; plan?: string } }>('/api/v1/accounts/:id', {
    config: admin,
    schema: writes.update,
    handler: async (request) => {
      checkPlan(deps.config, request.body.plan);
      const updated = await accounts.updateAccount(request.params.id, request.body);
      if (!updated) throw new QuireError('not_found', 'No account with this id.');
      return view(updated);
    },
  });
}

function registerKeys(app: FastifyInstance, deps: AppDeps): void {
  const { accounts } = deps.db;

  app.post<IdParams & { Body: NewKeyBody }>('/api/v1/accounts/:id/keys', {
    // A replayed key creation must not hand out the secret a second time from storage: the stored
    // copy has the key redacted, so the idempotency table never holds a usable API key.
    config: { ...admin, idempotencyStoredBody: redactKeySecret },
    schema: accountSchemas.createKey,
    handler: async (request, reply) => {
      const account = await loadAccount(deps, request.params.id);
      const body = request.body;
      const expiresAt =
        body.expires_in_days === undefined ? null : Date.now() + body.expires_in_days * DAY_MS;
      const { key, record } = await createKey(deps, account.id, body.name, body.scopes, body.mode, expiresAt);
      const location = `/api/v1/accounts/${account.id}/keys/${record.id}`;
      return reply
        .code(201)
        .header('Location', location)
        .send({ ...keyView(record), key });
    },
  });

  app.get<IdParams>('/api/v1/accounts/:id/keys', {
    config: admin,
    schema: accountSchemas.listKeys,
    handler: async (request) => {
      const account = await loadAccount(deps, request.params.id);
      const keys = await accounts.listKeys(account.id);
      return { object: 'list', data: keys.map(keyView), has_more: false };
    },
  });

  app.delete<{ Params: { id: string; key_id: string } }>('/api/v1/accounts/:id/keys/:key_id', {
    config: admin,
    schema: accountSchemas.revokeKey,
    handler: async (request, reply) => {
      const keys = await accounts.listKeys(request.params.id);
      const record = keys.find((k) => k.id === request.params.key_id);
      if (!record) throw new QuireError('not_found', 'No key with this id in this account.');
      await accounts.revokeKey(record.keyId);
      return reply.code(204).send();
    },
  });
}

function accountView(config: Config, account: Account) {
  return {
    id: account.id,
    object: 'account',
    name: account.name,
    plan: account.plan,
    limits: planView(planFor(config.plans, account.plan)),
    created_at: rfc3339(account.createdAt),
  };
}

function checkPlan(config: Config, plan: string | undefined): void {
  if (plan === undefined || config.plans[plan]) return;
  const known = Object.keys(config.plans).join(', ');
  throw new QuireError('invalid_request', `No plan is named "${plan}"; configured plans: ${known}.`, {
    errors: [{ pointer: '/plan', detail: `must be one of ${known}` }],
  });
}

async function loadAccount(deps: AppDeps, id: string): Promise<Account> {
  const account = await deps.db.accounts.getAccount(id);
  if (!account) throw new QuireError('not_found', 'No account with this id.');
  return account;
}

interface NewKeyBody {
  name: string;
  scopes: Scope[];
  mode: 'live' | 'test';
  expires_in_days?: number;
}

function keyView(record: ApiKeyRecord) {
  const now = Date.now();
  const status = record.revokedAt
    ? 'revoked'
    : record.expiresAt !== null && record.expiresAt <= now
      ? 'expired'
      : 'active';
  return {
    id: record.id,
    object: 'api_key',
    account: record.accountId,
    key_id: record.keyId,
    name: record.name,
    scopes: record.scopes,
    mode: record.mode,
    status,
    created_at: rfc3339(record.createdAt),
    expires_at: rfc3339(record.expiresAt),
    revoked_at: rfc3339(record.revokedAt),
  };
}

function redactKeySecret(body: Buffer): Buffer {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return body;
  }
  if (typeof parsed.key !== 'string') return body;
  return Buffer.from(JSON.stringify({ ...parsed, key: '[redacted]' }));
}
