// pymupdf adapter: real redaction (MuPDF removes the covered text, pixels and vector art) through a
// Python driver. The job (patterns included) goes in a 0600 file, never on argv, and the driver's
// report is counts only, so neither ever carries the text being hidden.
import { fileURLToPath } from 'node:url';
import { QuireError } from '../../errors/quire-error.js';
import { type RunResult, run, throwIfLimitHit } from '../../process/runner.js';
import { removeSecretFile, writeSecretFile } from '../../process/work-dir.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { toRunOptions } from '../call-options.js';
import { describeExit } from '../program.js';

/** The venv scripts/setup.sh installs PyMuPDF into (kept apart from Debian's Python packages). */
export const PYMUPDF_PYTHON = '/opt/quire-pymupdf/bin/python';
const DRIVER = fileURLToPath(new URL('../../../src/engines/pymupdf/redact.py', import.meta.url));

/** The driver's exit codes (redact.py). */
const EXIT = { ok: 0, unreadable: 3, tooMany: 4, badPattern: 5 } as const;

/** A report of counts per page is small; anything near this is not the driver's JSON. */
const REPORT_MAX_BYTES = 4 * 1024 * 1024;

export interface RedactJob {
  /** Page (from 1) and rectangle in PDF points, origin at the bottom left of the unrotated page. */
  areas: Array<{ page: number; rect: [number, number, number, number] }>;
  texts: string[];
  /** Python `re` syntax. */
  patterns: string[];
  ignoreCase: boolean;
  fill: 'black' | 'none';
  maxMatches: number;
}

export interface RedactPage {
  page: number;
  text_matches: number;
  areas: number;
  images: number;
  annotations: number;
  rasterized: boolean;
}

export interface RedactReport {
  pages: RedactPage[];
  metadata_entries: number;
}

function redactFailure(result: RunResult, maxMatches: number): QuireError | undefined {
  throwIfLimitHit(result);
  switch (result.exitCode) {
    case EXIT.ok:
      return undefined;
    case EXIT.unreadable:
      return new QuireError('pdf_corrupt', 'PyMuPDF could not read the PDF');
    case EXIT.tooMany: {
      // The driver's only stderr line for this exit is {"matches": n}: a count, never text.
      const matches = Number(/"matches": (\d+)/.exec(result.stderrTail)?.[1] ?? Number.NaN);
      return new QuireError(
        'redaction_matches_exceeded',
        `The texts and patterns match ${Number.isNaN(matches) ? 'more' : matches} times; max_matches is ${maxMatches}`,
      );
    }
    case EXIT.badPattern:
      return new QuireError('invalid_options', 'A pattern is not a valid regular expression');
    default:
      return new QuireError('engine_failed', describeExit('pymupdf', result));
  }
}

export function createPymupdf(defaults: EngineDefaults, opts: { isolateNetwork: boolean }) {
  return {
    /** Redacts `input` into `output` and returns what was removed, as counts per page. */
    async redact(
      input: string,
      output: string,
      job: RedactJob,
      call: EngineCallOptions,
    ): Promise<RedactReport> {
      const body = {
        input,
        output,
        areas: job.areas,
        texts: job.texts,
        patterns: job.patterns,
        ignore_case: job.ignoreCase,
        fill: job.fill,
        max_matches: job.maxMatches,
      };
      const jobFile = await writeSecretFile(call.workDir, JSON.stringify(body), 'redact');
      try {
        const result = await run(
          PYMUPDF_PYTHON,
          ['-I', DRIVER, jobFile],
          toRunOptions(defaults, call, {
            captureStdout: true,
            stdoutMaxBytes: REPORT_MAX_BYTES,
            ...(opts.isolateNetwork ? { network: false } : {}),
          }),
        );
        const failure = redactFailure(result, job.maxMatches);
        if (failure) throw failure;
        return JSON.parse(result.stdout) as RedactReport;
      } finally {
        await removeSecretFile(jobFile);
      }
    },
  };
}

export type Pymupdf = ReturnType<typeof createPymupdf>;
