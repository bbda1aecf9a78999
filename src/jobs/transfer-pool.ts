// The worker's transfer pool: URL imports and exports run here, apart from the engine slots, at most
// QUIRE_TRANSFER_CONCURRENCY at once per worker process and QUIRE_TRANSFER_MAX_PER_ACCOUNT of them
// for one account, so slow peers of one account can neither hold the engines nor every transfer.
import { Tally } from '../model/tally.js';

interface Waiting {
  account: string;
  start: () => void;
}

export class TransferPool {
  private running = 0;
  private readonly byAccount = new Tally<string>();
  private readonly waiting: Waiting[] = [];
  /** When each account with transfers running or waiting last started one (a counter, not a clock). */
  private readonly lastStarted = new Map<string, number>();
  private starts = 0;

  constructor(
    private readonly size: number,
    private readonly perAccount: number,
  ) {}

  /**
   * Whether as many transfers wait for room in the pool as it holds: a worker this far behind on
   * transfers stops claiming. Transfers waiting only for their own account's share do not count, so
   * one account's backlog never stops the worker claiming another account's job.
   */
  crowded(): boolean {
    let waitingForRoom = 0;
    for (const w of this.waiting) if (this.byAccount.of(w.account) < this.perAccount) waitingForRoom++;
    return waitingForRoom >= this.size;
  }

  /** Runs `work` once the pool and the account's share have room (`fairest` says who goes next). */
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
    return this.running < this.size && this.byAccount.of(account) < this.perAccount;
  }

  private enter(account: string): void {
    this.running++;
    this.byAccount.add(account);
    this.lastStarted.set(account, ++this.starts);
  }

  private leave(account: string): void {
    this.running--;
    if (this.byAccount.remove(account) === 0 && !this.waiting.some((w) => w.account === account))
      this.lastStarted.delete(account);
    for (let next = this.fairest(); next !== undefined; next = this.fairest()) {
      const [waiter] = this.waiting.splice(next, 1);
      this.enter(waiter!.account);
      waiter!.start();
    }
  }

  /**
   * The waiter to start as the fair claim picks a job: of those that fit, the one whose account has
   * the fewest transfers running, then the account served longest ago, then the earliest. First come
   * first served would hand each freed place to the account with the oldest backlog, and another
   * account could wait out all of it.
   */
  private fairest(): number | undefined {
    if (this.running >= this.size) return undefined;
    let best: number | undefined;
    let rank = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    for (const [i, waiter] of this.waiting.entries()) {
      const running = this.byAccount.of(waiter.account);
      const served = this.lastStarted.get(waiter.account) ?? 0;
      if (running >= this.perAccount) continue;
      if (running < rank[0]! || (running === rank[0] && served < rank[1]!)) {
        best = i;
        rank = [running, served];
      }
    }
    return best;
  }
}
