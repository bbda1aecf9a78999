// A finished run as the runner reports it, for the table-driven tests of each engine's failure mapping.
import type { RunResult } from '../../../src/process/runner.js';

export const runResult = (
  exitCode: number | null,
  stderrTail = '',
  extra: Partial<RunResult> = {},
): RunResult => ({
  exitCode,
  signal: null,
  stderrTail,
  stdout: '',
  stdoutTruncated: false,
  durationMs: 1,
  ...extra,
});
