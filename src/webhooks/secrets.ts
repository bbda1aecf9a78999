// Webhook signing secrets: minted as `whsec_` + base64 of 32 random bytes (docs/api.md §6) and kept
// encrypted at rest, so a copy of the database alone cannot forge deliveries.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
const SECRET_BYTES = 32;
/** GCM's standard nonce size; random per encryption (a secret is encrypted a handful of times). */
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Version tag of the stored form, so the scheme can change without guessing. */
const FORMAT = 'v1';

export function newWebhookSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key a secret stands for: the bytes after the prefix (as Standard Webhooks libraries do). */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/**
 * `v1.<base64 iv|tag|ciphertext>`. The endpoint id is the additional data, so a ciphertext copied
 * onto another endpoint's row does not decrypt there.
 */
export function encryptSecret(key: Buffer, endpointId: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(endpointId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${FORMAT}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

export function decryptSecret(key: Buffer, endpointId: string, stored: string): string {
  if (!stored.startsWith(`${FORMAT}.`)) throw new Error('unknown webhook secret format');
  const raw = Buffer.from(stored.slice(FORMAT.length + 1), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(endpointId, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
    'utf8',
  );
}
