// A new webhook endpoint record: enabled, with a fresh secret encrypted at rest under its own id.
// Both registration paths (POST /webhooks and the account's hidden job-callback endpoint) make one.
import { ulid } from 'ulid';
import type { WebhookEndpoint } from '../model/webhook.js';
import { encryptSecret, newWebhookSecret } from './secrets.js';

export function newEndpoint(
  key: Buffer,
  fields: Pick<WebhookEndpoint, 'accountId' | 'url' | 'description' | 'events'>,
  now = Date.now(),
): { endpoint: WebhookEndpoint; secret: string } {
  const id = `whe_${ulid()}`;
  const secret = newWebhookSecret();
  const endpoint: WebhookEndpoint = {
    id,
    ...fields,
    secretEncrypted: encryptSecret(key, id, secret),
    previousSecretEncrypted: null,
    previousSecretExpiresAt: null,
    status: 'enabled',
    disabledReason: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  return { endpoint, secret };
}
