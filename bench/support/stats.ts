// Small, dependency-free statistics and formatting for benchmark results.

/** Nearest-rank percentile (p in 0–100) of `values`; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export const median = (values: readonly number[]) => percentile(values, 50);

export const MiB = 1024 * 1024;

export function fmt(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

/** Renders rows as an aligned plain-text table (first row is the header). */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  const line = (row: readonly string[]) => row.map((cell, col) => cell.padEnd(widths[col]!)).join('  ');
  const [header, ...body] = rows;
  return [line(header!), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/**
 * Jobs per second of `clients` concurrent loops each running `job` `perClient` times (`n` numbers
 * the job across all loops, for output names); the clock stops when the last loop ends.
 */
export async function jobsPerSecond(
  clients: number,
  perClient: number,
  job: (n: number) => Promise<unknown>,
): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < perClient; i++) await job(c * perClient + i);
    }),
  );
  return (clients * perClient * 1000) / (performance.now() - started);
}
