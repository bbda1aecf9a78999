// Pure parser of qpdf's `--progress` lines; table-tested, no I/O.

/** qpdf `--progress` prints `qpdf: <output>: write progress: 42%` (stdout), once per percent or so. */
const QPDF_PROGRESS = /write progress: (\d{1,3})%\s*$/;

/** The fraction (0–1) of a qpdf write that is done, or undefined for any other line. */
export function parseQpdfProgress(line: string): number | undefined {
  const match = QPDF_PROGRESS.exec(line);
  if (!match) return undefined;
  return Math.min(100, Number(match[1])) / 100;
}

/** A stdout line handler that reports a write's percent as done/100. */
export function qpdfPercentReporter(
  onProgress: (done: number, total: number) => void,
): (line: string) => void {
  return (line) => {
    const fraction = parseQpdfProgress(line);
    if (fraction !== undefined) onProgress(fraction * 100, 100);
  };
}
