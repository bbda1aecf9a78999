// Typed job progress as state: a tool's declared step weights, the step it is in, its own count and
// the progress its current engine call left in a slot become one percent that only grows. Nothing
// here calls anyone: the job runner reads it when it wants to write (docs/architecture.md).
import { type CallProgress, ProgressSlot } from '../../engines/call-options.js';

export interface Progress {
  stage: string;
  step: number;
  steps: number;
  /** 0–99 while running; 100 is written only by completion (docs/api.md §2). */
  percent: number;
}

/** What a tool reports through (`ctx.progress`): its steps, its own count, its engine calls. */
export interface ToolProgress {
  /** Enter a named step declared in the tool's `steps`; progress jumps to the step's start. */
  step(name: string): void;
  /** Fraction (0–1) of the current step done, as the tool counts it. */
  fraction(done: number, total: number): void;
  /**
   * A slot for the progress of one engine call (`EngineCallOptions.progress`), read as the current
   * step's fraction; a later call's slot takes over from it.
   */
  engineSlot(): ProgressSlot;
}

/** The tool's side and the reading the job runner does. */
export interface ProgressReporter extends ToolProgress {
  /** The progress now: a percent that never decreases and never reaches 100. */
  read(): Progress;
}

/** A step's fraction of what an engine call reported, 0 before it reported anything. */
function fractionOf(progress: CallProgress | undefined): number {
  if (!progress || progress.total <= 0) return 0;
  return Math.min(1, Math.max(0, progress.done / progress.total));
}

class StepProgress implements ProgressReporter {
  private readonly names: string[];
  private readonly total: number;
  private index = -1;
  private start = 0;
  /** The current step's fraction as far as the tool counted it and earlier engine calls reached. */
  private within = 0;
  private slot: ProgressSlot | undefined;
  private last = 0;

  constructor(private readonly steps: Readonly<Record<string, number>>) {
    this.names = Object.keys(steps);
    this.total = this.names.reduce((sum, name) => sum + (steps[name] ?? 0), 0) || 1;
  }

  step(name: string): void {
    const next = this.names.indexOf(name);
    if (next < 0) throw new Error(`unknown progress step "${name}"`);
    if (next <= this.index) return;
    this.start = this.names.slice(0, next).reduce((sum, n) => sum + (this.steps[n] ?? 0), 0);
    this.index = next;
    this.within = 0;
    this.slot = undefined;
  }

  fraction(done: number, total: number): void {
    if (total <= 0) return;
    this.within = Math.max(this.within, fractionOf({ done, total }));
  }

  engineSlot(): ProgressSlot {
    // The call before has most likely ended: what it reached stays the step's.
    if (this.slot) this.within = Math.max(this.within, fractionOf(this.slot.read()));
    this.slot = new ProgressSlot();
    return this.slot;
  }

  read(): Progress {
    const name = this.names[this.index] ?? 'run';
    const weight = this.steps[name] ?? this.total;
    const within = Math.max(this.within, fractionOf(this.slot?.read()));
    const percent = Math.min(99, Math.floor(((this.start + weight * within) / this.total) * 100));
    this.last = Math.max(this.last, percent);
    const steps = Math.max(this.names.length, 1);
    return { stage: name, step: Math.max(this.index, 0) + 1, steps, percent: this.last };
  }
}

/** A reporter over declared step weights, read by whoever writes the job's progress. */
export function createProgressReporter(steps: Readonly<Record<string, number>>): ProgressReporter {
  return new StepProgress(steps);
}
