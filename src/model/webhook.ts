// Webhook endpoints and deliveries (docs/api.md §6): where an account's job events go, each delivery
// (one event for one endpoint) with its attempts, and what follows an attempt.
import type { JobEventType } from './job-event.js';

export interface WebhookEndpoint {
  id: string; // whe_<ulid>
  accountId: string;
  url: string;
  description: string;
  /** Event types, or ['*'] for all. */
  events: string[];
  /** The signing secret, encrypted at rest (opaque to the store). */
  secretEncrypted: string;
  /** The secret before the last rotation, still signing until `previousSecretExpiresAt`. */
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: number | null;
  status: 'enabled' | 'disabled';
  /** `gone` (the receiver answered 410), `failing` (failed continuously too long) or `manual`. */
  disabledReason: string | null;
  /** First failed attempt since the last success; null while healthy. */
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

export type WebhookMessageStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookAttempt {
  attemptedAt: number;
  /** HTTP status when the receiver answered at all. */
  statusCode: number | null;
  latencyMs: number;
  /** Null on success; otherwise e.g. `http_status`, `redirect`, `timeout`, `blocked_address`. */
  errorClass: string | null;
  /** At most a few hundred characters of the response body. */
  responseExcerpt: string | null;
}

/** One event for one endpoint: the unit of delivery, with the stable `webhook-id`. */
export interface WebhookMessage {
  id: string; // msg_<ulid>
  endpointId: string;
  accountId: string;
  jobId: string;
  eventType: JobEventType;
  status: WebhookMessageStatus;
  attempts: number;
  nextAttemptAt: number | null;
  createdAt: number;
  completedAt: number | null;
}

/** What happens to a message after an attempt. */
export type DeliveryNext = { kind: 'succeeded' } | { kind: 'retry'; at: number } | { kind: 'failed' };
