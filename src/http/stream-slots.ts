// What an account may hold open: Server-Sent Event streams and long-polls (`GET /jobs/{id}?wait=N`,
// `Prefer: wait`) are counted per API key and per account in this process, and each one ends when its
// key stops being valid (revoked or expired), read from the database every second past the key cache.
import type { FastifyReply } from 'fastify';
import type { AuthContext } from '../auth/authenticate.js';
import type { KeyCache } from '../auth/key-cache.js';
import { QuireError } from '../errors/quire-error.js';
import { Tally } from '../model/tally.js';
import type { AccountStore } from '../store/types.js';

export interface StreamLimits {
  maxPerKey: number;
  maxPerAccount: number;
}

/**
 * How often the keys of open streams are read again, from the database past the key cache
 * (`findKeyNow`): a revocation by any process ends them within this second, inside the cache's
 * lifetime (QUIRE_AUTH_CACHE_MS, 5 s by default) that a new request would still be trusted for. One
 * read per distinct key with a stream open, not per stream.
 */
const KEY_CHECK_MS = 1_000;

/** Reads a key; `findKeyNow`, where the store has a cache in front (auth/key-cache.ts), skips it. */
type KeyReader = Pick<AccountStore, 'findKey'> & Partial<Pick<KeyCache, 'findKeyNow'>>;
/** Streams last until their job ends; a client refused should not come back at once. */
const RETRY_AFTER_S = 5;

export class OpenStreams {
  private readonly byAccount = new Tally<string>();
  private readonly byKey = new Map<string, Set<AbortController>>();
  /** How each open place is given back, by the signal its holder got (`release`). */
  private readonly leaving = new WeakMap<AbortSignal, () => void>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(
    private readonly accounts: KeyReader,
    private readonly limits: StreamLimits,
  ) {}

  /**
   * Takes a place for one stream or long-poll of `auth` until `reply` closes, or throws 429
   * `too_many_streams`. The signal aborts when the client goes away or the key is no longer valid
   * (its reason is then the 401 to answer, where an answer can still be sent).
   */
  take(auth: AuthContext, reply: FastifyReply): AbortSignal {
    const refusal = this.refusal(auth);
    if (refusal) throw refusal;
    return this.enter(auth, reply);
  }

  /** As `take`, but undefined instead of a 429: for a wait the request may go without. */
  tryTake(auth: AuthContext, reply: FastifyReply): AbortSignal | undefined {
    return this.refusal(auth) ? undefined : this.enter(auth, reply);
  }

  private refusal(auth: AuthContext): QuireError | undefined {
    const ofKey = this.byKey.get(auth.keyId)?.size ?? 0;
    const ofAccount = this.byAccount.of(auth.accountId);
    const [held, quota, holder] =
      ofKey >= this.limits.maxPerKey
        ? [ofKey, this.limits.maxPerKey, 'API key']
        : [ofAccount, this.limits.maxPerAccount, 'account'];
    if (held < quota) return undefined;
    return new QuireError(
      'too_many_streams',
      `This ${holder} already has ${held} event streams and long-polls open, the most allowed at once; close one or retry later.`,
      {
        extras: { limit: 'concurrent_streams', quota },
        headers: { 'Retry-After': String(RETRY_AFTER_S) },
      },
    );
  }

  private enter(auth: AuthContext, reply: FastifyReply): AbortSignal {
    const controller = new AbortController();
    const streams = this.byKey.get(auth.keyId) ?? new Set();
    streams.add(controller);
    this.byKey.set(auth.keyId, streams);
    this.byAccount.add(auth.accountId);
    this.timer ??= setInterval(() => {
      if (this.checking) return; // a slow database: one check at a time
      this.checking = true;
      void this.checkKeys().finally(() => {
        this.checking = false;
      });
    }, KEY_CHECK_MS).unref();
    let held = true;
    const leave = () => {
      if (!held) return;
      held = false;
      streams.delete(controller);
      if (streams.size === 0 && this.byKey.get(auth.keyId) === streams) this.byKey.delete(auth.keyId);
      this.byAccount.remove(auth.accountId);
      if (this.byKey.size === 0) this.stopChecking();
    };
    this.leaving.set(controller.signal, leave);
    // The response's 'close' fires once, whether the answer went out or the client went away.
    reply.raw.once('close', () => {
      controller.abort();
      leave();
    });
    return controller.signal;
  }

  /**
   * Gives the place back before the answer is sent, once the wait it was taken for is over: the
   * response's 'close' may come after the client has read the whole answer and asked again.
   */
  release(signal: AbortSignal): void {
    this.leaving.get(signal)?.();
  }

  private async checkKeys(now = Date.now()): Promise<void> {
    for (const [keyId, streams] of this.byKey) {
      let valid: boolean;
      try {
        const key = (await (this.accounts.findKeyNow ?? this.accounts.findKey).call(this.accounts, keyId))
          ?.key;
        valid =
          key !== undefined && key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
      } catch {
        continue; // the database is away: judged again at the next check, as a request would be
      }
      if (valid) continue;
      const reason = new QuireError('invalid_api_key', 'The API key is unknown, revoked or expired.', {
        headers: { 'WWW-Authenticate': 'Bearer realm="quire"' },
      });
      for (const controller of streams) controller.abort(reason);
    }
  }

  private stopChecking(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
