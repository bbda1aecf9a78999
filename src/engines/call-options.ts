// What every engine method takes besides its own arguments, how that becomes runner options, and
// the state an engine leaves for its caller to read (a run's progress) instead of calling it back.
import { performance } from 'node:perf_hooks';
import { AbortedError, type RunOptions, type RunResult, run } from '../process/runner.js';
import type { EngineName, EngineSettings, RunDurations } from './types.js';

/** How far one engine call has got: pages, parts or percent, `done` of `total`. */
export interface CallProgress {
  done: number;
  total: number;
}

/** A run's progress as state: reading it parses the lines the run printed since the last read. */
export interface ProgressTracker {
  read(): CallProgress | undefined;
}

/**
 * Where an engine puts the tracker of the call it was given the slot with; the caller (the tool
 * framework's reporter) reads the slot when it wants to know, so the engine never calls it.
 */
export class ProgressSlot {
  private tracker: ProgressTracker | undefined;

  /** The engine's side: the tracker of the run now going (a later run's replaces it). */
  set(tracker: ProgressTracker): void {
    this.tracker = tracker;
  }

  /** The caller's side: the call's progress now, undefined until its engine reported any. */
  read(): CallProgress | undefined {
    return this.tracker?.read();
  }
}

export interface EngineCallOptions {
  /** The job's private directory: the child's cwd, HOME and TMPDIR, and where secret files go. */
  workDir: string;
  signal?: AbortSignal;
  /** Per-call overrides of the engine defaults (a tool's own limits). */
  timeoutMs?: number;
  memoryBytes?: number;
  /** Where the engine leaves this call's progress (done/total: pages, percent, …) to be read. */
  progress?: ProgressSlot;
  /**
   * The inputs were not opened by qpdf (an early run: `inputs.early` in tools/framework/types.ts):
   * a qpdf run that fails, or warns that it repaired the file, throws InputNeedsOpeningError instead
   * of its own error, so the runner opens the inputs with qpdf (repairing them if need be) and runs the tool
   * again, as if it had not taken the shortcut.
   */
  quickOpened?: boolean;
}

/** A qpdf run found fault with an input that was only opened in-process (`quickOpened`). */
export class InputNeedsOpeningError extends Error {
  override name = 'InputNeedsOpeningError';
}

export interface EngineDefaults {
  timeoutMs: number;
  memoryBytes: number;
  /** Where each run's wall time goes (engine-duration metrics), under this engine's name. */
  timing?: { durations: RunDurations; engine: EngineName };
}

/** CPU time may run a little past wall time on multi-threaded engines; wall time is the real cap. */
const CPU_SLACK = 2;

export function toRunOptions(
  defaults: EngineDefaults,
  call: EngineCallOptions,
  extra: Partial<RunOptions> = {},
): RunOptions {
  const timeoutMs = call.timeoutMs ?? defaults.timeoutMs;
  return {
    cwd: call.workDir,
    timeoutMs,
    ...(call.signal ? { signal: call.signal } : {}),
    limits: {
      memoryBytes: call.memoryBytes ?? defaults.memoryBytes,
      cpuSeconds: Math.ceil((timeoutMs / 1000) * CPU_SLACK),
    },
    ...extra,
  };
}

/**
 * Runs `command` through the runner and observes its wall time, however it ended: the engine times
 * its own runs, so the runner is handed no observer to call back.
 */
export async function runEngine(
  defaults: EngineDefaults,
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<RunResult> {
  const started = performance.now();
  let result: RunResult;
  try {
    result = await run(command, args, options);
  } finally {
    observeRun(defaults.timing, performance.now() - started);
  }
  // A cancel that landed as the run ended stops the call too, as one before the run's close does.
  if (options.signal?.aborted) throw new AbortedError(options.signal.reason);
  return result;
}

function observeRun(timing: EngineDefaults['timing'], ms: number): void {
  timing?.durations.observe({ engine: timing.engine }, ms / 1000);
}

/** Per-run defaults of an engine from the settings, its run times observed under `metric`. */
export function engineDefaults(settings: EngineSettings, metric: EngineName): EngineDefaults {
  return {
    timeoutMs: settings.timeoutMs,
    memoryBytes: settings.memoryBytes,
    ...(settings.durations ? { timing: { durations: settings.durations, engine: metric } } : {}),
  };
}

/**
 * Only the duration observer, for pooled engines that time their own requests: its code is this
 * folder's and it calls the histogram the runtime handed down (prom-client's), nothing above.
 */
export function observer(
  settings: EngineSettings,
  metric: EngineName,
): { onFinished?: (durationMs: number) => void } {
  const durations = settings.durations;
  return durations ? { onFinished: (ms: number) => observeRun({ durations, engine: metric }, ms) } : {};
}
