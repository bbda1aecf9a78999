// Writes a running job's progress: reads the step now running on a timer and writes the whole
// percent through the job service, at most once a second and only when it rose (STYLE: progress is
// typed and throttled). The reading goes down the call path; nothing below calls back up into jobs/.
import type { ClaimedJob } from '../store/types.js';
import type { ProgressReporter } from '../tools/framework/progress.js';

/** The write itself (JobService.setProgress): true when the lease still held. */
export interface ProgressWrites {
  setProgress(claim: ClaimedJob, percent: number): Promise<boolean>;
}

const MIN_INTERVAL_MS = 1_000;
/**
 * The first read waits this long after the steps start: a job done sooner (a rotate takes ~10 ms)
 * never reads or writes progress, which would cost a parse, a store write and a wake of every
 * waiter for nothing.
 */
const FIRST_READ_AFTER_MS = 250;

/** The job's progress as state: the running step's reporter and that step's span of the job's 0–100. */
export class JobProgress {
  private current: { reporter: ProgressReporter; start: number; share: number } | undefined;

  /** A step (or a fan-out branch's step) starts: it covers [start, start + share) of the job. */
  enter(reporter: ProgressReporter, start: number, share: number): void {
    this.current = { reporter, start, share };
  }

  /** The job's percent now (0 before the first step). */
  read(): number {
    const step = this.current;
    return step ? step.start + (step.share * step.reporter.read().percent) / 100 : 0;
  }
}

export class ProgressWriter {
  private written = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly progress: JobProgress,
    private readonly service: ProgressWrites,
    private readonly claim: ClaimedJob,
  ) {}

  /** Starts reading, the first time FIRST_READ_AFTER_MS from now. */
  start(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => void this.tick(), FIRST_READ_AFTER_MS);
  }

  /** Stops for good: the pending read is cleared and a write in flight schedules none. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    const value = Math.min(99, Math.floor(this.progress.read()));
    if (value > this.written) {
      this.written = value;
      try {
        await this.service.setProgress(this.claim, value);
      } catch {
        // Progress is advisory; a failed write is retried by the next read.
        this.written = 0;
      }
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), MIN_INTERVAL_MS);
  }
}
