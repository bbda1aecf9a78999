// The webhook store interface (docs/api.md §6): job events written in the outbox with each state change,
// the endpoints that receive them, and messages delivered as leased work.
import type { JobEventRecord } from '../model/job-event.js';
import type { DeliveryNext, WebhookAttempt, WebhookEndpoint, WebhookMessage } from '../model/webhook.js';

/** A message claimed for one attempt, with everything needed to send it. */
export interface DeliveryClaim {
  message: WebhookMessage;
  leaseToken: string;
  url: string;
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: number | null;
  body: Buffer;
}

export interface AttemptRecord {
  attempt: WebhookAttempt;
  next: DeliveryNext;
  /** The receiver answered 410 Gone: disable the endpoint now. */
  gone: boolean;
  /** Disable the endpoint when it has been failing since at or before this time. */
  disableIfFailingSince: number;
}

export interface WebhookStore {
  /**
   * Stores a new endpoint, unless its account already has `maxPerAccount` (checked under a lock on
   * the account, so concurrent registrations cannot pass it together): then throws
   * `webhook_endpoint_limit_exceeded`.
   */
  createEndpoint(endpoint: WebhookEndpoint, maxPerAccount?: number): Promise<WebhookEndpoint>;
  /**
   * The account's job-callback endpoint (signs per-job `webhook_url` deliveries): stores `endpoint`
   * as it unless the account has one, and returns the one that stands. Never listed, counted or
   * reachable through the endpoint operations below; `rotateSecret` takes its id.
   */
  ensureJobCallbackEndpoint(endpoint: WebhookEndpoint): Promise<WebhookEndpoint>;
  getJobCallbackEndpoint(accountId: string): Promise<WebhookEndpoint | undefined>;
  /** Account-scoped: another account's endpoint is undefined (→ 404). */
  getEndpoint(accountId: string, id: string): Promise<WebhookEndpoint | undefined>;
  listEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  /** Re-enabling clears the failure state; disabling fails the endpoint's pending messages. */
  updateEndpoint(
    accountId: string,
    id: string,
    changes: Partial<Pick<WebhookEndpoint, 'url' | 'description' | 'events' | 'status'>>,
    now?: number,
  ): Promise<WebhookEndpoint | undefined>;
  /** Removes the endpoint with its messages and attempts; false when unknown. */
  deleteEndpoint(accountId: string, id: string): Promise<boolean>;
  /** The current secret becomes the previous one (signing until `previousExpiresAt`). */
  rotateSecret(
    accountId: string,
    id: string,
    secretEncrypted: string,
    previousExpiresAt: number,
    now?: number,
  ): Promise<WebhookEndpoint | undefined>;
  /** The endpoint's messages newest first, each with its attempts (oldest first). */
  listMessages(
    accountId: string,
    endpointId: string,
    query: { limit: number; startingAfter?: string },
  ): Promise<{ messages: Array<WebhookMessage & { attemptLog: WebhookAttempt[] }>; hasMore: boolean }>;
  /** Schedules one more attempt now (whatever the status); undefined when unknown. */
  retryMessage(
    accountId: string,
    endpointId: string,
    messageId: string,
    now?: number,
  ): Promise<WebhookMessage | undefined>;

  /**
   * Calls `listener` after each commit that queued messages to send now: a job transition or a retry
   * made through this database, or (PostgreSQL, while `listenForChanges` runs) by another process.
   * Returns the unsubscribe function. Messages falling due later are found by polling.
   */
  onQueued(listener: () => void): () => void;
  /** Takes the next due message of an enabled endpoint under a lease (attempts + 1). */
  claimDelivery(leaseMs: number, now?: number): Promise<DeliveryClaim | undefined>;
  /**
   * Records an attempt and the message's next state while `leaseToken` still holds it; false (and
   * nothing written) otherwise. Returns why the endpoint was disabled by this attempt, if it was.
   */
  recordAttempt(
    messageId: string,
    leaseToken: string,
    record: AttemptRecord,
  ): Promise<{ recorded: boolean; disabled: 'gone' | 'failing' | null; endpointId?: string }>;
  /** The job's events in order (the outbox), for tests and audits. */
  listJobEvents(jobId: string): Promise<JobEventRecord[]>;
  /** Deletes events older than `before` that no message still waits on; returns how many. */
  prune(before: number): Promise<number>;
}
