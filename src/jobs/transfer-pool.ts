// The worker's transfer pool: URL imports and exports run here, apart from the engine slots, at most
// QUIRE_TRANSFER_CONCURRENCY at once per worker process and QUIRE_TRANSFER_MAX_PER_ACCOUNT of them
// for one account, so slow peers of one account can neither hold the engines nor every transfer.

interface Waiting {
  account: string;
  start: () => void;
}

export class TransferPool {
  private running = 0;
  private readonly byAccount = new Map<string, number>();
  private readonly waiting: Waiting[] = [];

  constructor(
    private readonly size: number,
    private readonly perAccount: number,
  ) {}

  /** Runs `work` once the pool and the account's share have room; first come, first served. */
  async run<T>(account: string, work: () => Promise<T>): Promise<T> {
    if (this.fits(account)) this.enter(account);
    else await new Promise<void>((start) => this.waiting.push({ account, start }));
    try {
      return await work();
    } finally {
      this.leave(account);
    }
  }

  private fits(account: string): boolean {
    return this.running < this.size && (this.byAccount.get(account) ?? 0) < this.perAccount;
  }

  private enter(account: string): void {
    this.running++;
    this.byAccount.set(account, (this.byAccount.get(account) ?? 0) + 1);
  }

  private leave(account: string): void {
    this.running--;
    const left = (this.byAccount.get(account) ?? 1) - 1;
    if (left > 0) this.byAccount.set(account, left);
    else this.byAccount.delete(account);
    // The first waiter that fits, not the first waiter: one account at its share must not hold up
    // another's transfer behind it.
    for (let i = 0; i < this.waiting.length && this.running < this.size; ) {
      const next = this.waiting[i]!;
      if (!this.fits(next.account)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.enter(next.account);
      next.start();
    }
  }
}
