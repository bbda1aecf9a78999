// The job runner's reading of progress (jobs/progress-writer.ts): read on a timer while the steps
// run, written when the whole percent rose, and stopped with the job, leaving no timer behind.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CallProgress } from '../../src/engines/call-options.js';
import { JobProgress, ProgressWriter } from '../../src/jobs/progress-writer.js';
import type { ClaimedJob } from '../../src/store/types.js';
import { createProgressReporter } from '../../src/tools/framework/progress.js';

const claim = { job: { id: 'job-1' }, leaseToken: 'lease' } as ClaimedJob;

/** A job of one step whose engine call's progress the test sets; counts the tracker's reads. */
function runningJob() {
  const state = { now: undefined as CallProgress | undefined, reads: 0 };
  const reporter = createProgressReporter({ run: 100 });
  reporter.step('run');
  reporter.engineSlot().set({
    read: () => {
      state.reads++;
      return state.now;
    },
  });
  const progress = new JobProgress();
  progress.enter(reporter, 0, 100);
  return { state, progress };
}

/** Records the writes JobService.setProgress would make; `next` decides how the next one ends. */
function writes() {
  const written: { at: number; percent: number }[] = [];
  let next: () => Promise<boolean> = async () => true;
  return {
    written,
    failNext() {
      next = async () => {
        next = async () => true;
        throw new Error('store unavailable');
      };
    },
    holdNext() {
      let release: (held: boolean) => void = () => undefined;
      next = () => new Promise<boolean>((resolve) => (release = resolve));
      return (held: boolean) => release(held);
    },
    service: {
      setProgress: (_claim: ClaimedJob, percent: number) => {
        written.push({ at: Date.now(), percent });
        return next();
      },
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the job runner reading progress', () => {
  it('does no progress work for a job that ends before the first read, and leaves no timer', async () => {
    const { state, progress } = runningJob();
    const sink = writes();
    const writer = new ProgressWriter(progress, sink.service, claim);
    writer.start();
    state.now = { done: 1, total: 2 };
    await vi.advanceTimersByTimeAsync(200);
    writer.stop();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(state.reads).toBe(0);
    expect(sink.written).toEqual([]);
  });

  it('writes the whole percent 250 ms in, then at most once a second and only when it rose', async () => {
    const { state, progress } = runningJob();
    const sink = writes();
    const writer = new ProgressWriter(progress, sink.service, claim);
    writer.start();
    state.now = { done: 307, total: 1000 };
    await vi.advanceTimersByTimeAsync(250);
    state.now = { done: 309, total: 1000 }; // 30.9 %: no whole percent more
    await vi.advanceTimersByTimeAsync(1_000);
    state.now = { done: 45, total: 100 };
    await vi.advanceTimersByTimeAsync(1_000);
    state.now = { done: 100, total: 100 };
    await vi.advanceTimersByTimeAsync(1_000);
    writer.stop();
    expect(sink.written).toEqual([
      { at: 250, percent: 30 },
      { at: 2_250, percent: 45 },
      { at: 3_250, percent: 99 },
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('retries a failed write at the next read', async () => {
    const { state, progress } = runningJob();
    const sink = writes();
    const writer = new ProgressWriter(progress, sink.service, claim);
    sink.failNext();
    writer.start();
    state.now = { done: 1, total: 4 };
    await vi.advanceTimersByTimeAsync(1_250);
    writer.stop();
    expect(sink.written.map((w) => w.percent)).toEqual([25, 25]);
  });

  it('schedules no read after a stop that comes while a write is in flight (a lost lease, a cancel)', async () => {
    const { state, progress } = runningJob();
    const sink = writes();
    const writer = new ProgressWriter(progress, sink.service, claim);
    const release = sink.holdNext();
    writer.start();
    state.now = { done: 1, total: 2 };
    await vi.advanceTimersByTimeAsync(250);
    expect(sink.written).toHaveLength(1);
    writer.stop();
    release(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(state.reads).toBe(1);
  });

  it('reads a step as its span of the job, so a later step never reads lower', () => {
    const progress = new JobProgress();
    expect(progress.read()).toBe(0);
    const first = createProgressReporter({ run: 100 });
    first.fraction(1, 1);
    progress.enter(first, 0, 50);
    expect(progress.read()).toBe(49.5);
    progress.enter(createProgressReporter({ run: 100 }), 50, 50);
    expect(progress.read()).toBe(50);
  });
});
