// The worker's engine slots (QUIRE_WORKER_CONCURRENCY): a counting semaphore that a job holds only
// while it runs tools, never while it waits on the network (docs/operations.md, "Transfers").

/**
 * Who asks for a slot. A job back from its import already holds a lease and a place in its plan's
 * concurrency, so it goes before a new claim: otherwise a stream of claims could starve it.
 */
export type SlotAsker = 'held' | 'claim';

export class EngineSlots {
  private free: number;
  private readonly held: Array<() => void> = [];
  private readonly claims: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  acquire(asker: SlotAsker): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => (asker === 'held' ? this.held : this.claims).push(resolve));
  }

  release(): void {
    const next = this.held.shift() ?? this.claims.shift();
    if (next) next();
    else this.free++;
  }
}
