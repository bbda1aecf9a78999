// Throttles progress writes: at most one per second per job, and only when the whole percent rises,
// with a trailing write so the last reported value is not lost (STYLE: progress is typed and throttled).

/** The write itself (JobService.setProgress): true when the lease still held. */
export type WriteProgress = (percent: number) => Promise<boolean>;

const MIN_INTERVAL_MS = 1_000;
/**
 * The first write waits this long after the job starts: a job done sooner (a rotate takes ~10 ms)
 * never writes progress, which would cost a store write and wake every waiter for nothing.
 */
const FIRST_WRITE_AFTER_MS = 250;

export class ProgressWriter {
  private written = 0;
  private pending = 0;
  private lastWriteAt = Date.now() - MIN_INTERVAL_MS + FIRST_WRITE_AFTER_MS;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly write: WriteProgress) {}

  offer(percent: number): void {
    if (this.stopped || percent <= this.pending) return;
    this.pending = Math.min(99, Math.floor(percent));
    const wait = this.lastWriteAt + MIN_INTERVAL_MS - Date.now();
    if (wait <= 0) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), wait);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    if (this.stopped || this.pending <= this.written) return;
    const value = this.pending;
    this.written = value;
    this.lastWriteAt = Date.now();
    try {
      await this.write(value);
    } catch {
      // Progress is advisory; a failed write is retried by the next offer.
      this.written = 0;
    }
  }
}
