// Pure parser of ocrmypdf's -v1 per-page messages into progress, read from a run's lines when
// asked; table-tested, no I/O.
import type { LineBuffer } from '../../process/line-buffer.js';
import type { CallProgress, ProgressTracker } from '../call-options.js';

/** `    3 Rasterize with …`: ocrmypdf -v1 names the page a message is about in the first column. */
const PAGE_LINE = /^\s+(\d+)\s/;

/** Pages finished as (distinct pages started − 1) of `total`; the pages seen last across reads. */
export class OcrmypdfTracker implements ProgressTracker {
  private readonly seen = new Set<number>();

  constructor(
    private readonly lines: LineBuffer,
    private readonly total: number,
  ) {}

  read(): CallProgress | undefined {
    for (const line of this.lines.drain()) {
      const match = PAGE_LINE.exec(line);
      if (!match) continue;
      const page = Number(match[1]);
      if (page >= 1 && page <= this.total) this.seen.add(page);
    }
    return this.seen.size > 0 ? { done: this.seen.size - 1, total: this.total } : undefined;
  }
}
