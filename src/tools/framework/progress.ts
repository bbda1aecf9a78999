// Typed job progress: a tool's declared step weights plus engine-reported fractions become one
// percent that only grows; pure, so tools report through it and jobs decide when to write.

export interface Progress {
  stage: string;
  step: number;
  steps: number;
  /** 0–99 while running; 100 is written only by completion (docs/api.md §2). */
  percent: number;
}

export interface ProgressReporter {
  /** Enter a named step declared in the tool's `steps`; progress jumps to the step's start. */
  step(name: string): void;
  /** Fraction (0–1) of the current step done, as the engine reports it. */
  fraction(done: number, total: number): void;
}

/**
 * Builds a reporter over declared step weights. `emit` receives a percent that never decreases
 * and never reaches 100; callers throttle the writes.
 */
export function createProgressReporter(
  steps: Readonly<Record<string, number>>,
  emit: (progress: Progress) => void,
): ProgressReporter {
  const names = Object.keys(steps);
  const total = names.reduce((sum, name) => sum + (steps[name] ?? 0), 0) || 1;
  let index = -1;
  let start = 0;
  let last = 0;

  const publish = (within: number) => {
    const name = names[index] ?? 'run';
    const weight = steps[name] ?? total;
    const percent = Math.min(99, Math.floor(((start + weight * within) / total) * 100));
    if (percent <= last) return;
    last = percent;
    emit({ stage: name, step: Math.max(index, 0) + 1, steps: Math.max(names.length, 1), percent });
  };

  return {
    step(name) {
      const next = names.indexOf(name);
      if (next < 0) throw new Error(`unknown progress step "${name}"`);
      if (next <= index) return;
      start = names.slice(0, next).reduce((sum, n) => sum + (steps[n] ?? 0), 0);
      index = next;
      publish(0);
    },
    fraction(done, total_) {
      if (total_ <= 0) return;
      publish(Math.min(1, Math.max(0, done / total_)));
    },
  };
}
