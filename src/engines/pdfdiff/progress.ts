// Pure parser of the compare driver's progress lines (`progress <done> <total>` on stderr, one per
// page read and per pair compared); table-tested, no I/O.

const PROGRESS_LINE = /^progress (\d+) (\d+)$/;

/** Feeds driver stderr lines; reports each well-formed, in-range `progress` line as done/total. */
export function compareProgressTracker(
  onProgress: (done: number, total: number) => void,
): (line: string) => void {
  return (line) => {
    const match = PROGRESS_LINE.exec(line.trim());
    if (!match) return;
    const done = Number(match[1]);
    const total = Number(match[2]);
    if (total < 1 || done > total) return;
    onProgress(done, total);
  };
}
