// pymupdf adapter: real redaction (MuPDF removes the covered text, pixels and vector art, and the
// driver every other place a text can live) through a Python driver run in the document sandbox
// (src/process/sandbox.ts), like pdf2docx: no network, the unprivileged sandbox user, no view of the
// host's files but the venv and an exchange folder. The job (patterns included) goes on stdin,
// never on argv, and the driver's report is counts only, so neither ever carries the hidden text.
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QuireError } from '../../errors/quire-error.js';
import { type RunResult, throwIfLimitHit } from '../../process/runner.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { runEngine, toRunOptions } from '../call-options.js';
import { describeExit } from '../program.js';
import { EXCHANGE, sandboxedPython } from '../sandboxed-python.js';
import type { DetectJob, DetectSummary, PiiKind } from './detect.js';

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
  /** Kinds of personal data found and removed like `patterns` (detect.ts), phone numbers read for `region`. */
  detect?: readonly PiiKind[];
  region?: string;
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
  /** With `detect`: how many of each kind the page text held. */
  detected: Partial<Record<PiiKind, number>>;
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

/** One run of the driver in the sandbox on `input`, with `body` (paths added) on its stdin. */
async function runDriver(
  defaults: EngineDefaults,
  input: string,
  body: Record<string, unknown>,
  call: EngineCallOptions,
): Promise<{ exchange: string; result: RunResult }> {
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
  const job = { input: `${EXCHANGE}/input.pdf`, ...body };
  // bwrap's own empty network namespace stands in for the runner's `network: false`.
  const result = await runEngine(
    defaults,
    command,
    args,
    toRunOptions(defaults, call, {
      stdin: JSON.stringify(job),
      captureStdout: true,
      stdoutMaxBytes: REPORT_MAX_BYTES,
    }),
  );
  return { exchange, result };
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
      const body = {
        output: `${EXCHANGE}/output.pdf`,
        areas: job.areas,
        texts: job.texts,
        patterns: job.patterns,
        ignore_case: job.ignoreCase,
        fill: job.fill,
        max_matches: job.maxMatches,
        detect: job.detect ?? [],
        region: job.region ?? null,
      };
      const { exchange, result } = await runDriver(defaults, input, body, call);
      const failure = redactFailure(result, job.maxMatches);
      if (failure) throw failure;
      await copyFile(path.join(exchange, 'output.pdf'), output).catch(() => {
        throw new QuireError('engine_failed', 'PyMuPDF wrote no document');
      });
      return JSON.parse(result.stdout) as RedactReport;
    },

    /**
     * Finds personal data in `input` (the driver's pii.py); the matches, full values included, are
     * written to `output` (JSON) and only counts come back.
     */
    async detect(input: string, output: string, job: DetectJob, call: EngineCallOptions) {
      const body = { action: 'detect', output: `${EXCHANGE}/output.json`, ...job };
      const { exchange, result } = await runDriver(defaults, input, body, call);
      const failure = redactFailure(result, 0);
      if (failure) throw failure;
      await copyFile(path.join(exchange, 'output.json'), output).catch(() => {
        throw new QuireError('engine_failed', 'PyMuPDF wrote no report');
      });
      return JSON.parse(result.stdout) as DetectSummary;
    },
  };
}

export type Pymupdf = ReturnType<typeof createPymupdf>;
