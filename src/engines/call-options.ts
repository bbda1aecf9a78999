// What every engine method takes besides its own arguments, and how that becomes runner options.
import type { RunOptions } from '../process/runner.js';
import type { EngineName, EngineSettings } from './types.js';

export interface EngineCallOptions {
  /** The job's private directory: the child's cwd, HOME and TMPDIR, and where secret files go. */
  workDir: string;
  signal?: AbortSignal;
  /** Per-call overrides of the engine defaults (a tool's own limits). */
  timeoutMs?: number;
  memoryBytes?: number;
  /** Progress of this one call as done/total (pages, percent, …). */
  onProgress?: (done: number, total: number) => void;
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
  /** Observes each run's wall time (engine-duration metrics). */
  onFinished?: (durationMs: number) => void;
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
    ...(defaults.onFinished ? { onFinished: defaults.onFinished } : {}),
    limits: {
      memoryBytes: call.memoryBytes ?? defaults.memoryBytes,
      cpuSeconds: Math.ceil((timeoutMs / 1000) * CPU_SLACK),
    },
    ...extra,
  };
}

/** Per-run defaults of an engine from the settings, its run times observed under `metric`. */
export function engineDefaults(settings: EngineSettings, metric: EngineName): EngineDefaults {
  return { timeoutMs: settings.timeoutMs, memoryBytes: settings.memoryBytes, ...observer(settings, metric) };
}

/** Only the duration observer, for pooled engines that keep their own limits. */
export function observer(
  settings: EngineSettings,
  metric: EngineName,
): { onFinished?: (durationMs: number) => void } {
  const observe = settings.observe;
  return observe ? { onFinished: (ms: number) => observe(metric, ms / 1000) } : {};
}
