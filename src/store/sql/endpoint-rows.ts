// Webhook endpoint rows and records: the one mapping between webhook_endpoints and WebhookEndpoint.
import type { Insertable, Selectable } from 'kysely';
import type { WebhookEndpoint } from '../../model/webhook.js';
import type { WebhookEndpointsTable } from './tables.js';

export function toEndpoint(row: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    secretEncrypted: row.secret,
    previousSecretEncrypted: row.previous_secret,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    status: row.status,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function fromEndpoint(e: WebhookEndpoint): Insertable<WebhookEndpointsTable> {
  return {
    id: e.id,
    account_id: e.accountId,
    url: e.url,
    description: e.description,
    events: JSON.stringify(e.events),
    secret: e.secretEncrypted,
    previous_secret: e.previousSecretEncrypted,
    previous_secret_expires_at: e.previousSecretExpiresAt,
    status: e.status,
    disabled_reason: e.disabledReason,
    failing_since: e.failingSince,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}
