// What every benchmark hands back to the runner: detail lines, summary rows, and whether its target held.

export interface BenchResult {
  name: string;
  /** Printed as the benchmark finishes. */
  lines: string[];
  /** [metric, value] rows for the final table. */
  summary: [string, string][];
  /** False when a stated target was missed (the run still completes); undefined when none is set. */
  ok: boolean | undefined;
}
