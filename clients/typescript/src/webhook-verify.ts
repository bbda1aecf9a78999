// Checks a webhook delivery with the Standard Webhooks reference library (`standardwebhooks`): the
// signature over `id.timestamp.body` with the endpoint's secret, and a timestamp within five minutes.
import { Webhook } from 'standardwebhooks';
import { QuireError } from './errors.js';
import type { components } from './generated/schema.js';

type Schemas = components['schemas'];
/** What an endpoint receives: `type` tells which job event, `data` is the job. */
export type WebhookEvent =
  | Schemas['JobCreatedEvent']
  | Schemas['JobProcessingEvent']
  | Schemas['JobSucceededEvent']
  | Schemas['JobFailedEvent']
  | Schemas['JobCanceledEvent'];

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function plain(headers: HeaderBag): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers instanceof Headers)
    headers.forEach((value, name) => {
      out[name] = value;
    });
  else
    for (const [name, value] of Object.entries(headers))
      if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/**
 * The event, when `body` (the exact bytes received) carries a valid signature by `secret`
 * (`whsec_…`); otherwise QuireError `webhook_verification_failed`. Accepts the Fetch `Headers` or
 * Node's `IncomingHttpHeaders`.
 */
export function verifyWebhook(body: string | Uint8Array, headers: HeaderBag, secret: string): WebhookEvent {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  try {
    return new Webhook(secret).verify(text, plain(headers)) as WebhookEvent;
  } catch (error) {
    // The library's message says what failed (signature, timestamp); never the secret.
    throw new QuireError({
      status: 0,
      code: 'webhook_verification_failed',
      title: 'Webhook verification failed',
      detail: error instanceof Error ? error.message : 'invalid signature',
      retryable: false,
    });
  }
}
