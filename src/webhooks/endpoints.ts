// Webhook endpoint changes of more than one step (docs/api.md §6), each one call for its route: a new
// endpoint with its fresh secret, and a rotation that keeps the old secret signing for a grace period.
import type { WebhookEndpoint } from '../model/webhook.js';
import type { WebhookStore } from '../store/webhook-types.js';
import { newEndpoint } from './new-endpoint.js';
import { encryptSecret, newWebhookSecret } from './secrets.js';

/** The stored endpoint and its secret in the clear, which only this answer ever shows. */
export interface IssuedSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

export async function registerEndpoint(
  store: WebhookStore,
  key: Buffer,
  fields: Pick<WebhookEndpoint, 'accountId' | 'url' | 'description' | 'events'>,
  maxPerAccount: number,
): Promise<IssuedSecret> {
  const { endpoint, secret } = newEndpoint(key, fields);
  return { endpoint: await store.createEndpoint(endpoint, maxPerAccount), secret };
}

/** A new secret for the account's endpoint; undefined when it has no such endpoint. */
export async function rotateEndpointSecret(
  store: WebhookStore,
  key: Buffer,
  accountId: string,
  id: string,
  graceMs: number,
): Promise<IssuedSecret | undefined> {
  if (!(await store.getEndpoint(accountId, id))) return undefined;
  const secret = newWebhookSecret();
  const now = Date.now();
  const encrypted = encryptSecret(key, id, secret);
  const endpoint = await store.rotateSecret(accountId, id, encrypted, now + graceMs, now);
  return endpoint ? { endpoint, secret } : undefined;
}
