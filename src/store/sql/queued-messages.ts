// The in-process word that webhook messages were queued: job transitions say so after their commit,
// so idle delivery slots wake for work that exists instead of reading the outbox on every job change.

/** What a transition wrote, besides the job row: whether it queued any webhook message. */
export interface Transition<T> {
  value: T;
  queued: boolean;
}

export class QueuedMessages {
  private readonly listeners = new Set<() => void>();

  /** Calls `listener` after each commit that queued messages; returns the unsubscribe function. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called once the transaction that queued messages has committed (never before: none to claim). */
  queued(): void {
    for (const listener of this.listeners) listener();
  }

  /** The transition's value, saying so first when it queued messages. */
  settle<T>(transition: Transition<T>): T {
    if (transition.queued) this.queued();
    return transition.value;
  }
}
