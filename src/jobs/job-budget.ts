// The plan's whole-job limits (docs/api.md §5) as running totals over a job's steps and branches:
// pages at each step, files fanned out, bytes of the result, bytes in the work dir, engine time. A
// branch has no limits of its own: each branch spends from the one job's budget, so a chain that
// multiplies (pages ×50, split, pages ×50…) stops at the plan's number, not at the plan's number
// per branch.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { WholeJobLimits } from '../config/plans.js';
import { QuireError } from '../errors/quire-error.js';

/** The names clients read in the error's message and operators in docs/operations.md. */
export type WholeJobLimit = 'output_bytes' | 'fan_out' | 'work_bytes' | 'engine_time';

/**
 * How often the work dir's size and the engine-time deadline are checked while a step runs: often
 * enough that a step writing at disk speed passes its limit by a few hundred MB at most, rarely
 * enough that a listing of thousands of parts costs little next to the engines writing them.
 */
const WATCH_INTERVAL_MS = 250;

export class JobBudget {
  /** Pages seen at each step's inputs (index = step); the last entry counts the final outputs. */
  private readonly pagesAt: number[];
  private parts = 0;
  private readonly deadline: number;
  private readonly stopper = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private watching = false;

  constructor(
    private readonly limits: WholeJobLimits & { maxPages: number },
    steps: number,
  ) {
    this.pagesAt = Array.from({ length: steps + 1 }, () => 0);
    this.deadline = Date.now() + limits.maxEngineMs;
  }

  /** Aborted, with the limit's error as reason, once the work dir or the engine time passes its limit. */
  get signal(): AbortSignal {
    return this.stopper.signal;
  }

  /**
   * The error that stopped the job, when the budget did (an engine then reports only an abort), or
   * the engine-time error once past the deadline: a run capped by `engineTimeoutMs` may time out
   * before the next watch tick names the limit.
   */
  get exceeded(): QuireError | undefined {
    if (this.stopper.signal.aborted) return this.stopper.signal.reason as QuireError;
    if (Date.now() >= this.deadline)
      return this.over('engine_time', this.limits.maxEngineMs, this.limits.maxEngineMs);
    return undefined;
  }

  /**
   * Pages step `index` may still open or write in this branch: what its inputs' level and its
   * outputs' level have left. Every PDF part has a page, so the outputs' level bounds the inputs too.
   */
  pagesLeft(index: number): number {
    const left = (level: number) => this.limits.maxPages - (this.pagesAt[level] ?? 0);
    return Math.max(0, Math.min(left(index), left(index + 1)));
  }

  /** Adds pages at a level (a step's opened inputs; for the last level, the final outputs). */
  countPages(level: number, pages: number): void {
    this.pagesAt[level] = (this.pagesAt[level] ?? 0) + pages;
  }

  /** A fan-out into `count` files: every branch of the job adds to one total. */
  countParts(count: number): void {
    this.parts += count;
    if (this.parts > this.limits.maxFanOut) throw this.over('fan_out', this.parts, this.limits.maxFanOut);
  }

  /** The result's bytes (or a fan-out's finals before they are packed), against the plan. */
  checkOutput(bytes: number): void {
    if (bytes > this.limits.maxOutputBytes)
      throw this.over('output_bytes', bytes, this.limits.maxOutputBytes);
  }

  /**
   * An engine run's wall-time cap: the server's, or what the job has left plus a second, so the
   * watch below (which names the limit) ends the run before the engine's own `timeout` would.
   */
  engineTimeoutMs(serverMs: number): number {
    return Math.max(1, Math.min(serverMs, this.deadline - Date.now() + 1_000));
  }

  /** Starts checking the work dir’s bytes and the deadline, until `end`. */
  watch(workDir: string): void {
    const tick = async () => {
      if (this.watching || this.stopper.signal.aborted) return;
      this.watching = true;
      try {
        if (Date.now() >= this.deadline)
          this.stop(this.over('engine_time', this.limits.maxEngineMs, this.limits.maxEngineMs));
        const bytes = await bytesUnder(workDir);
        if (bytes > this.limits.maxWorkBytes)
          this.stop(this.over('work_bytes', bytes, this.limits.maxWorkBytes));
      } finally {
        this.watching = false;
      }
    };
    this.timer = setInterval(() => void tick().catch(() => undefined), WATCH_INTERVAL_MS);
    this.timer.unref();
  }

  private stop(reason: QuireError): void {
    if (!this.stopper.signal.aborted) this.stopper.abort(reason);
    this.end();
  }

  /** Stops the watch; the job's outcome is decided. */
  end(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private over(limit: WholeJobLimit, value: number, max: number): QuireError {
    const what: Record<WholeJobLimit, string> = {
      output_bytes: `The result would be ${value} bytes`,
      fan_out: `The steps fan out into ${value} files`,
      work_bytes: `The job's files take ${value} bytes`,
      engine_time: `The steps ran for ${Math.round(value / 1000)} s`,
    };
    return new QuireError('job_limit_exceeded', `${what[limit]}; the plan's limit (${limit}) is ${max}.`, {
      extras: { limit, quota: max },
    });
  }
}

/** Bytes of the files under `dir`, however deep; files removed while listing count as gone. */
async function bytesUnder(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  let total = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const size = await stat(path.join(entry.parentPath ?? entry.path, entry.name)).then(
      (s) => s.size,
      () => 0,
    );
    total += size;
  }
  return total;
}
