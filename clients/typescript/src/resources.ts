// The JSON resources (docs/api.md §1, §3, §6): tools, webhook endpoints and their deliveries, the
// job webhook secret, accounts, plans and keys. Thin: each method is one typed openapi-fetch call.
import { type Api, data } from './api.js';
import type { components, operations } from './generated/schema.js';

type Schemas = components['schemas'];
type JsonBody<Op extends keyof operations> = operations[Op] extends { requestBody?: infer B }
  ? NonNullable<B> extends { content: { 'application/json': infer J } }
    ? J
    : never
  : never;

export type Tool = Schemas['Tool'];
export type ToolList = Schemas['ToolList'];

export class Tools {
  constructor(private readonly api: Api) {}
  /** The live catalogue with the caller's limits. */
  async list(): Promise<ToolList> {
    return data(await this.api.GET('/api/v1/tools'));
  }
  /** One tool of the catalogue; QuireError `unknown_tool` (status 0) when the server has none of that name. */
  async get(name: string): Promise<Tool | undefined> {
    return (await this.list()).data.find((t) => t.name === name);
  }
}

export class Webhooks {
  constructor(private readonly api: Api) {}
  async create(body: JsonBody<'createWebhookEndpoint'>): Promise<Schemas['WebhookEndpointWithSecret']> {
    return data(await this.api.POST('/api/v1/webhooks', { body }));
  }
  async list(): Promise<Schemas['WebhookEndpointList']> {
    return data(await this.api.GET('/api/v1/webhooks'));
  }
  async get(id: string): Promise<Schemas['WebhookEndpoint']> {
    return data(await this.api.GET('/api/v1/webhooks/{id}', { params: { path: { id } } }));
  }
  async update(id: string, body: JsonBody<'updateWebhookEndpoint'>): Promise<Schemas['WebhookEndpoint']> {
    return data(await this.api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body }));
  }
  async delete(id: string): Promise<void> {
    await this.api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } });
  }
  async rotateSecret(
    id: string,
    body: JsonBody<'rotateWebhookSecret'> = {},
  ): Promise<Schemas['WebhookEndpointWithSecret']> {
    return data(
      await this.api.POST('/api/v1/webhooks/{id}/rotate-secret', { params: { path: { id } }, body }),
    );
  }
  async deliveries(id: string): Promise<Schemas['WebhookDeliveryList']> {
    return data(await this.api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id } } }));
  }
  async redeliver(id: string, messageId: string): Promise<Schemas['WebhookDelivery']> {
    return data(
      await this.api.POST('/api/v1/webhooks/{id}/deliveries/{msg_id}/retry', {
        params: { path: { id, msg_id: messageId } },
      }),
    );
  }
  /** The account's secret for per-job `webhookUrl` deliveries (made on first use). */
  async jobSecret(): Promise<Schemas['JobWebhookSecret']> {
    return data(await this.api.GET('/api/v1/job-webhook-secret'));
  }
  async rotateJobSecret(body: JsonBody<'rotateJobWebhookSecret'> = {}): Promise<Schemas['JobWebhookSecret']> {
    return data(await this.api.POST('/api/v1/job-webhook-secret/rotate', { body }));
  }
}

export class Accounts {
  constructor(private readonly api: Api) {}
  async create(body: JsonBody<'createAccount'>): Promise<Schemas['Account']> {
    return data(await this.api.POST('/api/v1/accounts', { body }));
  }
  async list(): Promise<Schemas['AccountList']> {
    return data(await this.api.GET('/api/v1/accounts'));
  }
  async get(id: string): Promise<Schemas['Account']> {
    return data(await this.api.GET('/api/v1/accounts/{id}', { params: { path: { id } } }));
  }
  async update(id: string, body: JsonBody<'updateAccount'>): Promise<Schemas['Account']> {
    return data(await this.api.PATCH('/api/v1/accounts/{id}', { params: { path: { id } }, body }));
  }
  async plans(): Promise<Schemas['PlanList']> {
    return data(await this.api.GET('/api/v1/plans'));
  }
}

export class Keys {
  constructor(private readonly api: Api) {}
  /** A key under `accountId`; its secret (`key`) is in this answer only. */
  async create(accountId: string, body: JsonBody<'createApiKey'>): Promise<Schemas['ApiKeyWithSecret']> {
    return data(
      await this.api.POST('/api/v1/accounts/{id}/keys', { params: { path: { id: accountId } }, body }),
    );
  }
  async list(accountId: string): Promise<Schemas['ApiKeyList']> {
    return data(await this.api.GET('/api/v1/accounts/{id}/keys', { params: { path: { id: accountId } } }));
  }
  async revoke(accountId: string, keyId: string): Promise<void> {
    await this.api.DELETE('/api/v1/accounts/{id}/keys/{key_id}', {
      params: { path: { id: accountId, key_id: keyId } },
    });
  }
}
