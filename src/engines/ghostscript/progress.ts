// Pure parser of Ghostscript's per-page lines into progress facts; table-tested, no I/O.

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

/** Stateful wrapper: feeds lines, calls `onFraction(done, total)` when a page starts. */
export function ghostscriptProgressTracker(
  onFraction: (done: number, total: number) => void,
): (line: string) => void {
  let total = 0;
  return (line) => {
    const event = parseGhostscriptLine(line);
    if (!event) return;
    if (event.kind === 'total') total = event.pages;
    // "Page N" means page N is starting, so N-1 pages are finished.
    else if (total > 0) onFraction(event.page - 1, total);
  };
}
