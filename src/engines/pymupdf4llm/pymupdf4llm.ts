// pymupdf4llm adapter: a PDF to Markdown or to JSON blocks (headings with levels, paragraphs in reading
// order, lists, tables, links, images), through a Python driver (./structure/) run in the document
// sandbox like pdf2docx and PyMuPDF: no network, the unprivileged sandbox user, no view of the host's
// files but the venv and an exchange folder. The driver writes page by page and reports progress as
// `page n/N` on stderr; its stdout is one line of counts, never the document's text.
import { copyFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QuireError } from '../../errors/quire-error.js';
import { type RunResult, run, throwIfLimitHit } from '../../process/runner.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { toRunOptions } from '../call-options.js';
import { describeExit } from '../program.js';
import { EXCHANGE, sandboxedPython } from '../sandboxed-python.js';
import { structureProgressTracker } from './progress.js';

/** The venv scripts/setup.sh installs pymupdf4llm into, with the PyMuPDF release it requires. */
export const PYMUPDF4LLM_VENV = '/opt/quire-pymupdf4llm';
export const PYMUPDF4LLM_PYTHON = `${PYMUPDF4LLM_VENV}/bin/python`;
/** The driver folder, run as `python -I folder`; copied beside this module into dist/ by the build. */
const DRIVER = fileURLToPath(new URL('./structure/', import.meta.url));

const EXIT_UNREADABLE = 3;
/** The driver's stdout is one line of counts. */
const SUMMARY_MAX_BYTES = 64 * 1024;

export interface StructureJob {
  format: 'markdown' | 'json';
  /** Pages from 1, in order; all pages when empty. */
  pages: number[];
  pageMarkers: boolean;
  /** Leave out lines repeated at the same height in the top or bottom band of most pages. */
  dropRunning: boolean;
  /** Write the page images as PNG files beside the document and reference them from it. */
  images: boolean;
}

export interface StructureCounts {
  pages: number;
  headings: number;
  tables: number;
  images: number;
  blocks: number;
}

export interface StructureResult {
  counts: StructureCounts;
  /** The document written (Markdown or JSON). */
  document: string;
  /** The image files it references, in the order written. */
  images: string[];
}

function structureFailure(result: RunResult): QuireError | undefined {
  throwIfLimitHit(result);
  if (result.exitCode === 0) return undefined;
  if (result.exitCode === EXIT_UNREADABLE)
    return new QuireError('pdf_corrupt', 'PyMuPDF could not read the PDF');
  return new QuireError('engine_failed', describeExit('pymupdf4llm', result));
}

export function createPymupdf4llm(defaults: EngineDefaults) {
  return {
    /** Converts `input` into `output` (Markdown or JSON); images, when asked for, go to `imageDir`. */
    async structure(
      input: string,
      output: string,
      imageDir: string,
      job: StructureJob,
      call: EngineCallOptions,
    ): Promise<StructureResult> {
      const { exchange, command, args } = await sandboxedPython({
        engine: 'pymupdf4llm',
        workDir: call.workDir,
        venv: PYMUPDF4LLM_VENV,
        copies: [
          [input, 'input.pdf'],
          [DRIVER, 'structure'],
        ],
        args: ['-I', `${EXCHANGE}/structure`],
      });
      const body = {
        input: `${EXCHANGE}/input.pdf`,
        output: `${EXCHANGE}/document`,
        out_dir: EXCHANGE,
        format: job.format,
        pages: job.pages,
        page_markers: job.pageMarkers,
        drop_running: job.dropRunning,
        images: job.images,
      };
      const progress = call.onProgress ? structureProgressTracker(call.onProgress) : undefined;
      // bwrap's own empty network namespace stands in for the runner's `network: false`.
      const result = await run(
        command,
        args,
        toRunOptions(defaults, call, {
          stdin: JSON.stringify(body),
          captureStdout: true,
          stdoutMaxBytes: SUMMARY_MAX_BYTES,
          ...(progress ? { onStderrLine: progress } : {}),
        }),
      );
      const failure = structureFailure(result);
      if (failure) throw failure;
      await copyFile(path.join(exchange, 'document'), output).catch(() => {
        throw new QuireError('engine_failed', 'pymupdf4llm wrote no document');
      });
      const images = job.images ? await moveImages(path.join(exchange, 'images'), imageDir) : [];
      return { counts: JSON.parse(result.stdout) as StructureCounts, document: output, images };
    },
  };
}

async function moveImages(from: string, to: string): Promise<string[]> {
  const names = (await readdir(from).catch(() => [] as string[])).sort();
  const moved: string[] = [];
  for (const name of names) {
    await copyFile(path.join(from, name), path.join(to, name));
    moved.push(path.join(to, name));
  }
  return moved;
}

export type Pymupdf4llm = ReturnType<typeof createPymupdf4llm>;
