// Keeps the leases of running jobs: renews each at half the lease, and checks once a second whether
// each is still held so a cancel from another process (or a sweep) stops the engine within ~1 s.

import type { JobEvents } from '../model/job-change.js';
import type { Logger } from '../observability/logger.js';
import type { JobService } from './job-service.js';

/** Why a running job's engine was stopped. */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

interface Held {
  jobId: string;
  controller: AbortController;
  renewTimer: NodeJS.Timeout;
  offEvents: () => void;
}

const CANCEL_POLL_MS = 1_000;

/**
 * Leases are keyed by token, not job id: one worker may claim a job again after its own earlier
 * attempt lost the lease (a stall, a partition), and that earlier attempt must still be stopped.
 */
export class LeaseKeeper {
  private readonly held = new Map<string, Held>();
  private readonly pollTimer: NodeJS.Timeout;

  constructor(
    private readonly service: Pick<JobService, 'renewLease' | 'heldLeases'>,
    private readonly events: JobEvents,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {
    this.pollTimer = setInterval(() => void this.poll(), CANCEL_POLL_MS);
    this.pollTimer.unref();
  }

  /** Starts keeping a lease; the returned signal aborts when it is lost or the job is canceled. */
  hold(jobId: string, token: string): AbortSignal {
    // Claimed again, so any earlier attempt of ours at this job has lost its lease: stop it now.
    for (const [other, entry] of this.held) if (entry.jobId === jobId) this.lose(other, 'lease lost');
    const controller = new AbortController();
    const renewTimer = setInterval(() => void this.renew(token), Math.max(100, Math.floor(this.leaseMs / 2)));
    renewTimer.unref();
    // A cancel or delete, in this process or (PostgreSQL) another: stop at once, not at the next poll.
    const offEvents = this.events.onJob(jobId, (change) => {
      if (change.kind === 'canceled') this.lose(token, 'canceled');
    });
    this.held.set(token, { jobId, controller, renewTimer, offEvents });
    return controller.signal;
  }

  release(token: string): void {
    const entry = this.held.get(token);
    if (!entry) return;
    clearInterval(entry.renewTimer);
    entry.offEvents();
    this.held.delete(token);
  }

  stop(): void {
    clearInterval(this.pollTimer);
    for (const token of [...this.held.keys()]) this.lose(token, 'worker stopping');
  }

  private lose(token: string, why: string): void {
    const entry = this.held.get(token);
    if (!entry || entry.controller.signal.aborted) return;
    entry.controller.abort(new LeaseLostError(why));
  }

  private async renew(token: string): Promise<void> {
    const entry = this.held.get(token);
    if (!entry) return;
    try {
      if (!(await this.service.renewLease(entry.jobId, token, this.leaseMs))) this.lose(token, 'lease lost');
    } catch (error) {
      // A failed renewal is not a lost lease yet; the next one (or the expiry) decides.
      this.logger.warn({ job: entry.jobId, err: { type: (error as Error).name } }, 'lease renewal failed');
    }
  }

  private async poll(): Promise<void> {
    if (this.held.size === 0) return;
    const leases = [...this.held].map(([token, h]) => ({ id: h.jobId, token }));
    try {
      const still = await this.service.heldLeases(leases);
      for (const { id, token } of leases) if (!still.has(id)) this.lose(token, 'lease lost');
    } catch (error) {
      this.logger.warn({ err: { type: (error as Error).name } }, 'lease poll failed');
    }
  }
}
