// pymupdf adapter: real redaction (MuPDF removes the covered text, pixels and vector art, and the
// driver every other place a text can live) through a Python driver run in the document sandbox
// (src/process/sandbox.ts), like pdf2docx: no network, the unprivileged sandbox user, no view of the
// host's files but the venv and an exchange folder. The job (patterns included) goes on stdin,
// never on argv, and the driver's report is counts only, so neither ever carries the hidden text.
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QuireError } from '../../errors/quire-error.js';
import { type RunResult, run, throwIfLimitHit } from '../../process/runner.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { toRunOptions } from '../call-options.js';
import { describeExit } from '../program.js';
import { EXCHANGE, sandboxedPython } from '../sandboxed-python.js';

/** The venv scripts/setup.sh installs PyMuPDF into (kept apart from Debian's Python packages). */
export const PYMUPDF_VENV = '/opt/quire-pymupdf';
export const PYMUPDF_PYTHON = `${PYMUPDF_VENV}/bin/python`;
/**
 * The driver: a folder of Python modules run as `python -I folder` (its __main__.py), beside this
 * module in src/ and, copied by the build, in dist/ (scripts/copy-python.mjs).
 */
const DRIVER = fileURLToPath(new URL('./redact/', import.meta.url));

/** The driver's exit codes (redact/__main__.py, redact/terms.py). */
const EXIT = { ok: 0, unreadable: 3, tooMany: 4, badPattern: 5, leftOver: 6 } as const;

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
  /** Matches in the page's text inside its box, and outside the CropBox or MediaBox. */
  text_matches: number;
  outside_box: number;
  areas: number;
  images: number;
  /** Annotations (links included) deleted; form fields deleted under an area. */
  annotations: number;
  fields: number;
  rasterized: boolean;
}

/** The places the driver cleans, each with how many entries it changed or removed there. */
export const REDACTION_PLACES = [
  'page_text',
  'outside_box',
  'marked_content',
  'annotations',
  'form_fields',
  'fields_deleted',
  'document_info',
  'document_xmp',
  'page_xmp',
  'other_xmp',
  'outlines',
  'actions',
  'javascript',
  'embedded_files',
  'page_labels',
  'named_destinations',
  'structure',
  'other',
] as const;

export type RedactionPlace = (typeof REDACTION_PLACES)[number];

export interface RedactReport {
  pages: RedactPage[];
  removed: Record<RedactionPlace, number>;
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
    case EXIT.leftOver:
      // The driver's own check after cleaning found a match again: nothing is returned.
      return new QuireError('engine_failed', 'PyMuPDF could not remove every match; no result was written');
    default:
      return new QuireError('engine_failed', describeExit('pymupdf', result));
  }
}

export function createPymupdf(defaults: EngineDefaults) {
  return {
    /** Redacts `input` into `output` and returns what was removed, as counts per page and place. */
    async redact(
      input: string,
      output: string,
      job: RedactJob,
      call: EngineCallOptions,
    ): Promise<RedactReport> {
      const { exchange, command, args } = await sandboxedPython({
        engine: 'pymupdf',
        workDir: call.workDir,
        venv: PYMUPDF_VENV,
        copies: [
          [input, 'input.pdf'],
          [DRIVER, 'redact'],
        ],
        args: ['-I', `${EXCHANGE}/redact`],
      });
      const body = {
        input: `${EXCHANGE}/input.pdf`,
        output: `${EXCHANGE}/output.pdf`,
        areas: job.areas,
        texts: job.texts,
        patterns: job.patterns,
        ignore_case: job.ignoreCase,
        fill: job.fill,
        max_matches: job.maxMatches,
      };
      // bwrap's own empty network namespace stands in for the runner's `network: false`.
      const result = await run(
        command,
        args,
        toRunOptions(defaults, call, {
          stdin: JSON.stringify(body),
          captureStdout: true,
          stdoutMaxBytes: REPORT_MAX_BYTES,
        }),
      );
      const failure = redactFailure(result, job.maxMatches);
      if (failure) throw failure;
      await copyFile(path.join(exchange, 'output.pdf'), output).catch(() => {
        throw new QuireError('engine_failed', 'PyMuPDF wrote no document');
      });
      return JSON.parse(result.stdout) as RedactReport;
    },
  };
}

export type Pymupdf = ReturnType<typeof createPymupdf>;
