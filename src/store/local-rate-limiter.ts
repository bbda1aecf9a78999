// The rate limiter of a process that is the only one serving the API on its database (docs/api.md
// §5, `QUIRE_REQUEST_STATE=local`): GCRA decided in memory, so a request writes nothing. Buckets are
// read from the database on first use and merged into it every `syncMs`, so a restart keeps them
// and other processes on the same database converge on one budget.

import type { Database } from './job-stores.js';
import { decide, gcraStep, type LocalCount, SqlRateLimiter } from './sql/rate-limiter.js';
import type { RateDecision, RateLimiter, RatePolicy } from './types.js';

interface Bucket extends LocalCount {
  /** Counted or read since the previous sync; a bucket idle for a whole sync period is dropped. */
  used: boolean;
}

export class LocalRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly loading = new Map<string, Promise<Bucket>>();
  private readonly timer: NodeJS.Timeout;
  private syncing: Promise<void> = Promise.resolve();

  constructor(
    private readonly stored: SqlRateLimiter,
    syncMs: number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.timer = setInterval(() => void this.sync(), syncMs);
    this.timer.unref();
  }

  async consume(bucket: string, policy: RatePolicy, now = Date.now()): Promise<RateDecision> {
    const state = this.buckets.get(bucket) ?? (await this.load(bucket));
    // From here to the return nothing awaits: concurrent requests on one bucket decide one by one.
    const step = gcraStep(state.tat, policy, now);
    state.used = true;
    if (step.allowed) {
      state.spentMs += step.tat - Math.max(state.tat, now);
      state.tat = step.tat;
    }
    return decide(step.tat, step.allowed, policy, now);
  }

  async peek(bucket: string, policy: RatePolicy, now = Date.now()): Promise<RateDecision> {
    const state = this.buckets.get(bucket) ?? (await this.load(bucket));
    state.used = true;
    const step = gcraStep(state.tat, policy, now);
    return decide(Math.max(state.tat, now), step.allowed, policy, now);
  }

  async prune(now = Date.now()): Promise<number> {
    await this.sync();
    for (const [name, state] of this.buckets)
      if (state.tat < now && state.spentMs === 0) this.buckets.delete(name);
    return this.stored.prune(now);
  }

  /** Writes every bucket counted since the last sync; runs one at a time. */
  sync(): Promise<void> {
    this.syncing = this.syncing.then(() => this.syncNow());
    return this.syncing;
  }

  /** Stops the timer after a last sync, so a clean shutdown loses nothing. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sync();
  }

  private async syncNow(): Promise<void> {
    for (const [name, state] of this.buckets) {
      if (state.spentMs === 0) {
        // Already in the database as it is: an idle bucket is read again when next needed.
        if (!state.used) this.buckets.delete(name);
        state.used = false;
        continue;
      }
      const sent = { tat: state.tat, base: state.base, spentMs: state.spentMs };
      try {
        const stored = await this.stored.merge(name, sent);
        // Requests counted while the merge ran stay on top of what the database now says.
        state.tat = stored + (state.tat - sent.tat);
        state.spentMs -= sent.spentMs;
        state.base = stored;
      } catch (error) {
        // Kept as counted; the next sync tries again.
        this.onError(error);
      }
      state.used = false;
    }
  }

  private load(bucket: string): Promise<Bucket> {
    let pending = this.loading.get(bucket);
    if (!pending) {
      pending = this.stored.read(bucket).then((tat) => {
        const state: Bucket = { tat: tat ?? 0, base: tat ?? null, spentMs: 0, used: true };
        this.buckets.set(bucket, state);
        return state;
      });
      pending.finally(() => this.loading.delete(bucket)).catch(() => undefined);
      this.loading.set(bucket, pending);
    }
    return pending;
  }
}

/**
 * `db` with its rate limits counted in memory; closing it syncs them first. A database whose
 * limiter is not the SQL one is returned as it is.
 */
export function withLocalRateLimits(
  db: Database,
  syncMs: number,
  onError?: (error: unknown) => void,
): Database {
  if (!(db.rateLimits instanceof SqlRateLimiter)) return db;
  const local = new LocalRateLimiter(db.rateLimits, syncMs, onError);
  return {
    ...db,
    rateLimits: local,
    async close() {
      await local.close();
      await db.close();
    },
  };
}
