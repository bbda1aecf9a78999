// Pure parser of the structure driver's `page n/N` stderr lines into progress, read from a run's
// lines when asked; table-tested, no I/O.
import type { LineBuffer } from '../../process/line-buffer.js';
import type { CallProgress, ProgressTracker } from '../call-options.js';

const PAGE_LINE = /^page (\d+)\/(\d+)$/;

/** The last finished page as (done, total). */
export class StructureTracker implements ProgressTracker {
  private last: CallProgress | undefined;

  constructor(private readonly lines: LineBuffer) {}

  read(): CallProgress | undefined {
    for (const line of this.lines.drain()) {
      const match = PAGE_LINE.exec(line.trim());
      if (!match) continue;
      const done = Number(match[1]);
      const total = Number(match[2]);
      if (total > 0 && done >= 1 && done <= total) this.last = { done, total };
    }
    return this.last;
  }
}
