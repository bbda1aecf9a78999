// The webhook dispatcher: a few delivery slots per worker process, apart from job slots, that claim
// due messages from the SQL queue under a lease, send one signed attempt each and record the outcome.
// It sleeps until the store says messages were queued or the poll interval passes (retries falling
// due, and changes made by other processes on SQLite).
import type { Config } from '../config/config.js';
import type { DeliveryNext } from '../model/webhook.js';
import type { Logger } from '../observability/logger.js';
import { IdleWaiters } from '../process/idle-waiters.js';
import type { DeliveryClaim, WebhookStore } from '../store/webhook-types.js';
import { type AttemptResult, postWebhook } from './deliver.js';
import { nextAfterFailure, parseRetryAfter } from './schedule.js';
import { decryptSecret } from './secrets.js';
import { webhookHeaders } from './signature.js';

export interface WebhookDispatcherDeps {
  webhooks: WebhookStore;
  keys: { webhookSecretKey: Buffer };
  config: { webhooks: Config['webhooks'] };
  logger: Logger;
}

/** Old events are pruned this often; the work is one indexed DELETE. */
const PRUNE_EVERY_MS = 10 * 60_000;

export function startWebhookDispatcher(deps: WebhookDispatcherDeps): { stop(): Promise<void> } {
  const { concurrency, pollMs, timeoutMs } = deps.config.webhooks;
  // An attempt ends by its time limit; twice that leaves room for recording it on a busy disk before
  // another process may take the message and send a duplicate.
  const leaseMs = 2 * timeoutMs;
  let stopped = false;
  const waiters = new IdleWaiters(pollMs);
  const wakeAll = () => waiters.wakeAll();
  // One slot per commit that queued messages, and only then: waking on every job change sent a slot
  // to read the outbox three times per job with no endpoint. A slot that finds a message wakes the
  // next, so a burst still fans out.
  const offQueued = deps.webhooks.onQueued(() => waiters.wakeOne());
  const idle = () => waiters.idle();

  const slot = async () => {
    while (!stopped) {
      let claim: DeliveryClaim | undefined;
      try {
        claim = await deps.webhooks.claimDelivery(leaseMs);
        if (claim) {
          waiters.wakeOne();
          await attempt(deps, claim);
        }
      } catch (error) {
        // The message's lease runs out and it falls due again; nothing is lost.
        deps.logger.error(
          { msg_id: claim?.message.id, err: { type: (error as Error).name, stack: (error as Error).stack } },
          'webhook delivery crashed',
        );
      }
      if (!claim) await idle();
    }
  };

  const slots = Array.from({ length: concurrency }, () => slot());
  const pruner = setInterval(() => {
    deps.webhooks.prune(Date.now() - deps.config.webhooks.retentionMs).catch((error: Error) => {
      deps.logger.error({ err: { type: error.name, stack: error.stack } }, 'webhook event prune failed');
    });
  }, PRUNE_EVERY_MS);
  pruner.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(pruner);
      offQueued();
      wakeAll();
      await Promise.allSettled(slots);
    },
  };
}

/** Sends one attempt and records it; the record is refused if the lease was lost meanwhile. */
async function attempt(deps: WebhookDispatcherDeps, claim: DeliveryClaim): Promise<void> {
  const { message } = claim;
  const settings = deps.config.webhooks;
  const now = Date.now();
  const result = await postWebhook(
    claim.url,
    webhookHeaders(secretsOf(deps, claim, now), message.id, Math.floor(now / 1000), claim.body),
    claim.body,
    { timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivate },
  );
  const finished = Date.now();
  const gone = result.statusCode === 410;
  const next = decideNext(result, gone, message.attempts, settings.retryScheduleMs, finished);
  const outcome = await deps.webhooks.recordAttempt(message.id, claim.leaseToken, {
    attempt: {
      attemptedAt: now,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      errorClass: result.errorClass,
      responseExcerpt: result.responseExcerpt,
    },
    next,
    gone,
    disableIfFailingSince: finished - settings.disableAfterMs,
  });
  // Ids, status and class only: never the secret, the signature, the body or the response excerpt.
  const fields = {
    msg_id: message.id,
    endpoint: message.endpointId,
    account: message.accountId,
    event_type: message.eventType,
    attempt: message.attempts,
    status: result.statusCode ?? undefined,
    error_class: result.errorClass ?? undefined,
    ms: Math.round(result.latencyMs),
    next: next.kind,
  };
  if (!outcome.recorded) deps.logger.warn(fields, 'webhook attempt not recorded: lease lost');
  else if (next.kind === 'succeeded') deps.logger.info(fields, 'webhook delivered');
  else deps.logger.info(fields, 'webhook attempt failed');
  if (outcome.disabled) {
    deps.logger.warn(
      { endpoint: message.endpointId, account: message.accountId, reason: outcome.disabled },
      'webhook.endpoint_disabled',
    );
  }
}

function decideNext(
  result: AttemptResult,
  gone: boolean,
  attemptsMade: number,
  schedule: readonly number[],
  now: number,
): DeliveryNext {
  if (result.errorClass === null) return { kind: 'succeeded' };
  if (gone) return { kind: 'failed' };
  // Only 429 and 503 carry a Retry-After meant for us (RFC 9110 §10.2.3); elsewhere it is ignored.
  const throttled = result.statusCode === 429 || result.statusCode === 503;
  const retryAfter = throttled ? parseRetryAfter(result.retryAfter, now) : null;
  return nextAfterFailure(schedule, attemptsMade, now, retryAfter);
}

/** The current secret, plus the previous one while its rotation grace period lasts. */
function secretsOf(deps: WebhookDispatcherDeps, claim: DeliveryClaim, now: number): string[] {
  const key = deps.keys.webhookSecretKey;
  const secrets = [decryptSecret(key, claim.message.endpointId, claim.secretEncrypted)];
  if (claim.previousSecretEncrypted && (claim.previousSecretExpiresAt ?? 0) > now) {
    secrets.push(decryptSecret(key, claim.message.endpointId, claim.previousSecretEncrypted));
  }
  return secrets;
}
