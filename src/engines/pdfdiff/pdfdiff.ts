// pdfdiff adapter: compares two PDFs page by page (text with difflib, pixels with numpy and SciPy,
// both through PyMuPDF) by a Python driver run in the document sandbox (src/process/sandbox.ts), as
// pdf2docx and redact are: no network, the unprivileged sandbox user, no view of the host's files
// but the venv and an exchange folder. The job goes on stdin; the report, which holds the files'
// words, and a summary of counts and page numbers are files the driver writes in the exchange folder.
import { copyFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QuireError } from '../../errors/quire-error.js';
import { LineBuffer } from '../../process/line-buffer.js';
import { throwIfLimitHit } from '../../process/runner.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { runEngine, toRunOptions } from '../call-options.js';
import { describeExit } from '../program.js';
import { EXCHANGE, sandboxedPython } from '../sandboxed-python.js';
import { CompareTracker } from './progress.js';

/** The venv scripts/setup.sh installs PyMuPDF, numpy and SciPy into. */
export const PDFDIFF_VENV = '/opt/quire-pdfdiff';
/** The driver folder, run as `python -I folder`, beside this module in src/ and, built, in dist/. */
const DRIVER = fileURLToPath(new URL('./compare/', import.meta.url));
const EXIT_UNREADABLE = 3;

export interface CompareJob {
  /** 0-based page indices to compare, in order; undefined compares every page. */
  oldPages?: number[];
  newPages?: number[];
  mode: 'text' | 'visual' | 'both';
  dpi: number;
  /** 0–1: a pixel changed when a colour channel differs by more than this share of full scale. */
  threshold: number;
  /** Write the new file with the changes marked (annotations) to `marked`. */
  marked?: string;
}

export interface CompareSummary {
  identical: boolean;
  old_page_count: number;
  new_page_count: number;
  pairs: number;
  pages_changed: number;
  text_changes: number;
  visual_regions: number;
  pages_added: number[];
  pages_removed: number[];
  pages_moved: Array<{ old: number; new: number }>;
}

/** The driver's summary: a small JSON file of counts and page numbers. */
async function readSummary(file: string): Promise<CompareSummary> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as CompareSummary;
  } catch {
    throw new QuireError('engine_failed', 'The compare driver wrote no summary');
  }
}

export function createPdfdiff(defaults: EngineDefaults) {
  return {
    /** Compares `oldPdf` with `newPdf`, writes the JSON report to `report` and returns its summary. */
    async compare(
      oldPdf: string,
      newPdf: string,
      report: string,
      job: CompareJob,
      call: EngineCallOptions,
    ): Promise<CompareSummary> {
      const { exchange, command, args } = await sandboxedPython({
        engine: 'pdfdiff',
        workDir: call.workDir,
        venv: PDFDIFF_VENV,
        copies: [
          [oldPdf, 'old.pdf'],
          [newPdf, 'new.pdf'],
          [DRIVER, 'compare'],
        ],
        args: ['-I', `${EXCHANGE}/compare`],
      });
      const body = {
        old: `${EXCHANGE}/old.pdf`,
        new: `${EXCHANGE}/new.pdf`,
        report: `${EXCHANGE}/report.json`,
        summary: `${EXCHANGE}/summary.json`,
        marked: job.marked === undefined ? null : `${EXCHANGE}/marked.pdf`,
        old_pages: job.oldPages ?? null,
        new_pages: job.newPages ?? null,
        mode: job.mode,
        dpi: job.dpi,
        threshold: job.threshold,
      };
      const lines = call.progress ? new LineBuffer() : undefined;
      if (lines) call.progress?.set(new CompareTracker(lines));
      // bwrap's own empty network namespace stands in for the runner's `network: false`.
      const result = await runEngine(
        defaults,
        command,
        args,
        toRunOptions(defaults, call, {
          stdin: JSON.stringify(body),
          ...(lines ? { stderrLines: lines } : {}),
        }),
      );
      throwIfLimitHit(result);
      if (result.exitCode === EXIT_UNREADABLE)
        throw new QuireError('pdf_corrupt', 'PyMuPDF could not read one of the PDFs');
      if (result.exitCode !== 0) throw new QuireError('engine_failed', describeExit('pdfdiff', result));
      const wrote = (from: string, to: string) =>
        copyFile(path.join(exchange, from), to).catch(() => {
          throw new QuireError('engine_failed', 'The compare driver wrote no report');
        });
      await wrote('report.json', report);
      if (job.marked !== undefined) await wrote('marked.pdf', job.marked);
      return readSummary(path.join(exchange, 'summary.json'));
    },
  };
}

export type Pdfdiff = ReturnType<typeof createPdfdiff>;
