// When a failed delivery is tried again (docs/api.md §6): the configured schedule with ±15 % jitter, and
// never sooner than a receiver's Retry-After on 429/503.
import type { DeliveryNext } from '../model/webhook.js';

/** Spreads retries of many messages that failed together (an outage) so they do not return in a burst. */
export const JITTER = 0.15;
/** The longest Retry-After honoured: a receiver cannot park a message longer than the longest step. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * `attemptsMade` counts the attempt that just failed. The schedule's entry at that index is the
 * delay before the next attempt; past the end the message has failed.
 */
export function nextAfterFailure(
  schedule: readonly number[],
  attemptsMade: number,
  now: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): DeliveryNext {
  if (attemptsMade >= schedule.length) return { kind: 'failed' };
  const base = schedule[attemptsMade]!;
  const jittered = base * (1 + (2 * random() - 1) * JITTER);
  const delay = Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
  return { kind: 'retry', at: now + Math.round(delay) };
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
