// Pure parser of ocrmypdf's -v1 per-page messages into progress; table-tested, no I/O.

/** `    3 Rasterize with …`: ocrmypdf -v1 names the page a message is about in the first column. */
const PAGE_LINE = /^\s+(\d+)\s/;

/** Feeds ocrmypdf lines; reports pages finished as (distinct pages started − 1) of `total`. */
export function ocrmypdfProgressTracker(
  total: number,
  onProgress: (done: number, total: number) => void,
): (line: string) => void {
  const seen = new Set<number>();
  return (line) => {
    const match = PAGE_LINE.exec(line);
    if (!match) return;
    const page = Number(match[1]);
    if (page < 1 || page > total || seen.has(page)) return;
    seen.add(page);
    onProgress(seen.size - 1, total);
  };
}
