// Webhook store types (docs/api.md §6): job events written in the outbox with each state change, the
// endpoints that receive them, and messages delivered as leased work. Re-exported by types.ts.
/** Job events (docs/api.md §6). Receivers must ignore types they do not know; we only add new ones. */
export type JobEventType = 'job.created' | 'job.processing' | 'job.succeeded' | 'job.failed' | 'job.canceled';
export const jobEventTypes: readonly JobEventType[] = [
  'job.created',
  'job.processing',
  'job.succeeded',
  'job.failed',
  'job.canceled',
];

/** An outbox row: written in the same transaction as the job state change it describes. */
export interface JobEventRecord {
  type: JobEventType;
  jobId: string;
  accountId: string;
  /** The exact payload bytes every delivery of this event sends and signs. */
  body: Buffer;
  createdAt: number;
}

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

/** What happens to a message after an attempt. */
export type DeliveryNext = { kind: 'succeeded' } | { kind: 'retry'; at: number } | { kind: 'failed' };

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
