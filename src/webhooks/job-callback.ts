// The account's job webhook secret (docs/api.md §6, "Per-job webhook_url"): created on first use,
// kept on the account's hidden job-callback endpoint, readable and rotatable like an endpoint's.
import type { WebhookEndpoint } from '../model/webhook.js';
import type { WebhookStore } from '../store/webhook-types.js';
import { newEndpoint } from './new-endpoint.js';
import { decryptSecret, encryptSecret, newWebhookSecret } from './secrets.js';

/** The account's job-callback endpoint, made with a fresh secret if it has none yet. */
export async function jobCallbackEndpoint(
  store: WebhookStore,
  key: Buffer,
  accountId: string,
): Promise<WebhookEndpoint> {
  const existing = await store.getJobCallbackEndpoint(accountId);
  if (existing) return existing;
  const { endpoint } = newEndpoint(key, {
    accountId,
    url: '',
    description: 'per-job webhook_url deliveries',
    events: [],
  });
  return store.ensureJobCallbackEndpoint(endpoint);
}

/** The secret that signs the account's webhook_url deliveries. */
export async function jobCallbackSecret(
  store: WebhookStore,
  key: Buffer,
  accountId: string,
): Promise<string> {
  const endpoint = await jobCallbackEndpoint(store, key, accountId);
  return decryptSecret(key, endpoint.id, endpoint.secretEncrypted);
}

/** A new secret; the old one keeps signing beside it for `graceMs`, as for endpoints. */
export async function rotateJobCallbackSecret(
  store: WebhookStore,
  key: Buffer,
  accountId: string,
  graceMs: number,
): Promise<string> {
  const endpoint = await jobCallbackEndpoint(store, key, accountId);
  const secret = newWebhookSecret();
  const now = Date.now();
  await store.rotateSecret(
    accountId,
    endpoint.id,
    encryptSecret(key, endpoint.id, secret),
    now + graceMs,
    now,
  );
  return secret;
}
