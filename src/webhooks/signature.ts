// Standard Webhooks signing (docs/api.md §6): HMAC-SHA256 over `id.timestamp.body` with the bytes of the
// secret, base64, prefixed `v1,`; several signatures are space-separated during a secret rotation.
import { createHmac } from 'node:crypto';
import { signingKey } from './secrets.js';

/** One `v1,<base64>` signature over the exact body bytes that are sent. */
export function sign(secret: string, msgId: string, timestampSeconds: number, body: Buffer): string {
  const mac = createHmac('sha256', signingKey(secret))
    .update(`${msgId}.${timestampSeconds}.`, 'utf8')
    .update(body)
    .digest('base64');
  return `v1,${mac}`;
}

/** The three headers of one attempt; the newest secret signs first. */
export function webhookHeaders(
  secrets: readonly string[],
  msgId: string,
  timestampSeconds: number,
  body: Buffer,
): Record<string, string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => sign(s, msgId, timestampSeconds, body)).join(' '),
  };
}
