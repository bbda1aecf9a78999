// Pure parser of Ghostscript's per-page lines into progress facts, and the tracker that reads a
// run's lines when asked; table-tested, no I/O.
import type { LineBuffer } from '../../process/line-buffer.js';
import type { CallProgress, ProgressTracker } from '../call-options.js';

export type GhostscriptProgress = { kind: 'total'; pages: number } | { kind: 'page'; page: number };

/**
 * Ghostscript (without -q) announces `Processing pages 1 through 18.` once and then `Page N`
 * before each page it interprets. N is the page number within the document, so with the total
 * it gives a fraction.
 */
const GS_TOTAL = /^Processing pages (\d+) through (\d+)\.\s*$/;
const GS_PAGE = /^Page (\d+)\s*$/;

export function parseGhostscriptLine(line: string): GhostscriptProgress | undefined {
  const total = GS_TOTAL.exec(line);
  if (total) return { kind: 'total', pages: Number(total[2]) - Number(total[1]) + 1 };
  const page = GS_PAGE.exec(line);
  if (page) return { kind: 'page', page: Number(page[1]) };
  return undefined;
}

/** A run's progress read from its stderr lines: pages finished of the announced total. */
export class GhostscriptTracker implements ProgressTracker {
  private total = 0;
  private last: CallProgress | undefined;

  constructor(private readonly lines: LineBuffer) {}

  read(): CallProgress | undefined {
    for (const line of this.lines.drain()) {
      const event = parseGhostscriptLine(line);
      if (!event) continue;
      if (event.kind === 'total') this.total = event.pages;
      // "Page N" means page N is starting, so N-1 pages are finished.
      else if (this.total > 0) this.last = { done: event.page - 1, total: this.total };
    }
    return this.last;
  }
}
