// Keeps the leases of running jobs: renews each at half the lease, and checks once a second whether
// each is still held so a cancel from another process (or a sweep) stops the engine within ~1 s.
import type { Logger } from '../observability/logger.js';
import type { JobStore } from '../store/types.js';
import type { JobEvents } from './events.js';

/** Why a running job's engine was stopped. */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

interface Held {
  token: string;
  controller: AbortController;
  renewTimer: NodeJS.Timeout;
  offEvents: () => void;
}

const CANCEL_POLL_MS = 1_000;

export class LeaseKeeper {
  private readonly held = new Map<string, Held>();
  private readonly pollTimer: NodeJS.Timeout;

  constructor(
    private readonly jobs: JobStore,
    private readonly events: JobEvents,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {
    this.pollTimer = setInterval(() => void this.poll(), CANCEL_POLL_MS);
    this.pollTimer.unref();
  }

  /** Starts keeping a lease; the returned signal aborts when it is lost or the job is canceled. */
  hold(jobId: string, token: string): AbortSignal {
    const controller = new AbortController();
    const renewTimer = setInterval(() => void this.renew(jobId), Math.max(100, Math.floor(this.leaseMs / 2)));
    renewTimer.unref();
    // In-process cancel or delete: stop at once instead of at the next poll.
    const offEvents = this.events.onJob(jobId, (change) => {
      if (change.kind === 'canceled') this.lose(jobId, 'canceled');
    });
    this.held.set(jobId, { token, controller, renewTimer, offEvents });
    return controller.signal;
  }

  release(jobId: string): void {
    const entry = this.held.get(jobId);
    if (!entry) return;
    clearInterval(entry.renewTimer);
    entry.offEvents();
    this.held.delete(jobId);
  }

  stop(): void {
    clearInterval(this.pollTimer);
    for (const id of [...this.held.keys()]) this.lose(id, 'worker stopping');
  }

  private lose(jobId: string, why: string): void {
    const entry = this.held.get(jobId);
    if (!entry || entry.controller.signal.aborted) return;
    entry.controller.abort(new LeaseLostError(why));
  }

  private async renew(jobId: string): Promise<void> {
    const entry = this.held.get(jobId);
    if (!entry) return;
    try {
      if (!(await this.jobs.renewLease(jobId, entry.token, this.leaseMs))) this.lose(jobId, 'lease lost');
    } catch (error) {
      // A failed renewal is not a lost lease yet; the next one (or the expiry) decides.
      this.logger.warn({ job: jobId, err: { type: (error as Error).name } }, 'lease renewal failed');
    }
  }

  private async poll(): Promise<void> {
    if (this.held.size === 0) return;
    const leases = [...this.held].map(([id, h]) => ({ id, token: h.token }));
    try {
      const still = await this.jobs.heldLeases(leases);
      for (const { id } of leases) if (!still.has(id)) this.lose(id, 'lease lost');
    } catch (error) {
      this.logger.warn({ err: { type: (error as Error).name } }, 'lease poll failed');
    }
  }
}
