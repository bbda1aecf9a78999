// Pure parser of the structure driver's `page n/N` stderr lines into progress; table-tested, no I/O.

const PAGE_LINE = /^page (\d+)\/(\d+)$/;

/** Feeds driver stderr lines; reports each finished page as (done, total). */
export function structureProgressTracker(onProgress: (done: number, total: number) => void) {
  return (line: string): void => {
    const match = PAGE_LINE.exec(line.trim());
    if (!match) return;
    const done = Number(match[1]);
    const total = Number(match[2]);
    if (total > 0 && done >= 1 && done <= total) onProgress(done, total);
  };
}
