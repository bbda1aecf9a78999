// Idle polling loops that can be woken early: each waiter sleeps until its poll interval passes or
// `wakeAll` is called (an in-process event that there may be work). Both the job worker slots and the
// webhook delivery slots run such loops, so it lives below both.

export class IdleWaiters {
  private readonly sleepers = new Set<(woken?: boolean) => void>();

  constructor(private readonly pollMs: number) {}

  /** Resolves after the poll interval (false), or earlier (true) when woken. */
  idle(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const done = (woken = true) => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve(woken);
      };
      const timer = setTimeout(() => done(false), this.pollMs);
      this.sleepers.add(done);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.sleepers]) wake();
  }

  /**
   * Wakes the waiter that has slept longest: one new job needs one slot, and waking every idle slot
   * (in every process, with PostgreSQL notices) would send them all to rank the queue for it.
   */
  wakeOne(): void {
    const first = this.sleepers.values().next();
    if (!first.done) first.value();
  }
}
