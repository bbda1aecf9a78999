// Pure parser of the compare driver's progress lines (`progress <done> <total>` on stderr, one per
// page read and per pair compared), read from a run's lines when asked; table-tested, no I/O.
import type { LineBuffer } from '../../process/line-buffer.js';
import type { CallProgress, ProgressTracker } from '../call-options.js';

const PROGRESS_LINE = /^progress (\d+) (\d+)$/;

/** The last well-formed, in-range `progress` line as done/total. */
export class CompareTracker implements ProgressTracker {
  private last: CallProgress | undefined;

  constructor(private readonly lines: LineBuffer) {}

  read(): CallProgress | undefined {
    for (const line of this.lines.drain()) {
      const match = PROGRESS_LINE.exec(line.trim());
      if (!match) continue;
      const done = Number(match[1]);
      const total = Number(match[2]);
      if (total >= 1 && done <= total) this.last = { done, total };
    }
    return this.last;
  }
}
