// Pure parser of qpdf's `--progress` lines, and the trackers that read a run's lines when asked;
// table-tested, no I/O.
import { LineBuffer } from '../../process/line-buffer.js';
import type { CallProgress, ProgressTracker } from '../call-options.js';

/** qpdf `--progress` prints `qpdf: <output>: write progress: 42%` (stdout), once per percent or so. */
const QPDF_PROGRESS = /write progress: (\d{1,3})%\s*$/;

/** The fraction (0–1) of a qpdf write that is done, or undefined for any other line. */
export function parseQpdfProgress(line: string): number | undefined {
  const match = QPDF_PROGRESS.exec(line);
  if (!match) return undefined;
  return Math.min(100, Number(match[1])) / 100;
}

/** A write's last percent as done/100. */
export class QpdfPercentTracker implements ProgressTracker {
  private last: CallProgress | undefined;

  constructor(private readonly lines: LineBuffer) {}

  read(): CallProgress | undefined {
    for (const line of this.lines.drain()) {
      const fraction = parseQpdfProgress(line);
      if (fraction !== undefined) this.last = { done: fraction * 100, total: 100 };
    }
    return this.last;
  }
}

/** The line qpdf prints as it finishes writing one file (one part of a split). */
const WRITTEN = /write progress: 100%\s*$/;

/**
 * A split's parts written of `parts`: qpdf reports 0–100 % per part file, each 100 % one part. Its
 * buffer (`lines`, handed to the run) keeps only the 100 % lines, so a split that writes more parts
 * between two reads than the buffer holds is still counted whole: each dropped line was a part.
 */
export class QpdfPartsTracker implements ProgressTracker {
  readonly lines = new LineBuffer(undefined, WRITTEN);
  private done = 0;
  private dropped = 0;

  constructor(private readonly parts: number) {}

  read(): CallProgress | undefined {
    this.done += this.lines.drain().length + this.lines.dropped - this.dropped;
    this.dropped = this.lines.dropped;
    return this.done > 0 ? { done: Math.min(this.done, this.parts), total: this.parts } : undefined;
  }
}
