// pymupdf4llm adapter: a PDF to Markdown or to JSON blocks (headings with levels, paragraphs in reading
// order, lists, tables, links, images), through a Python driver (./structure/) run in the document
// sandbox like pdf2docx and PyMuPDF: no network, the unprivileged sandbox user, no view of the host's
// files but the venv and an exchange folder. The driver writes page by page and reports progress as
// `page n/N` on stderr; its stdout is one line of counts, or the survey (font sizes and the running
// lines' normalised texts, handed back on stdin and never logged).
// A conversion is one `survey` run and then one `convert` run per run of pages (the tool's).
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QuireError } from '../../errors/quire-error.js';
import { LineBuffer } from '../../process/line-buffer.js';
import { type RunResult, throwIfLimitHit } from '../../process/runner.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { runEngine, toRunOptions } from '../call-options.js';
import { describeExit } from '../program.js';
import { EXCHANGE, sandboxedPython } from '../sandboxed-python.js';
import { StructureTracker } from './progress.js';

/** The venv scripts/setup.sh installs pymupdf4llm into, with the PyMuPDF release it requires. */
export const PYMUPDF4LLM_VENV = '/opt/quire-pymupdf4llm';
export const PYMUPDF4LLM_PYTHON = `${PYMUPDF4LLM_VENV}/bin/python`;
/** The driver folder, run as `python -I folder`; copied beside this module into dist/ by the build. */
const DRIVER = fileURLToPath(new URL('./structure/', import.meta.url));

const EXIT_UNREADABLE = 3;
/** The driver prints one line of counts, or the survey: font sizes and a few running lines. */
const SUMMARY_MAX_BYTES = 1024 * 1024;

/** What every run of one conversion shares (the driver's `survey`): opaque to Quire. */
export type StructureSurvey = Record<string, unknown>;

export interface StructureRun {
  format: 'markdown' | 'json';
  /** Pages from 1, in order. */
  pages: number[];
  pageMarkers: boolean;
  images: boolean;
  survey: StructureSurvey;
}

export interface StructureCounts {
  pages: number;
  headings: number;
  tables: number;
  images: number;
  blocks: number;
}

function structureFailure(result: RunResult): QuireError | undefined {
  throwIfLimitHit(result);
  if (result.exitCode === 0) return undefined;
  if (result.exitCode === EXIT_UNREADABLE)
    return new QuireError('pdf_corrupt', 'PyMuPDF could not read the PDF');
  return new QuireError('engine_failed', describeExit('pymupdf4llm', result));
}

export function createPymupdf4llm(defaults: EngineDefaults) {
  /** One sandboxed driver run in a folder of its own, removed afterwards with the input's copy. */
  async function driver<T>(
    input: string,
    job: Record<string, unknown>,
    call: EngineCallOptions,
    collect: (exchange: string, stdout: string) => Promise<T>,
  ): Promise<T> {
    const runDir = await mkdtemp(path.join(call.workDir, 'structure-'));
    try {
      const { exchange, command, args } = await sandboxedPython({
        engine: 'pymupdf4llm',
        workDir: runDir,
        venv: PYMUPDF4LLM_VENV,
        copies: [
          [input, 'input.pdf'],
          [DRIVER, 'structure'],
        ],
        args: ['-I', `${EXCHANGE}/structure`],
      });
      const lines = call.progress ? new LineBuffer() : undefined;
      if (lines) call.progress?.set(new StructureTracker(lines));
      // bwrap's own empty network namespace stands in for the runner's `network: false`.
      const result = await runEngine(
        defaults,
        command,
        args,
        toRunOptions(defaults, call, {
          stdin: JSON.stringify({ input: `${EXCHANGE}/input.pdf`, out_dir: EXCHANGE, ...job }),
          captureStdout: true,
          stdoutMaxBytes: SUMMARY_MAX_BYTES,
          ...(lines ? { stderrLines: lines } : {}),
        }),
      );
      const failure = structureFailure(result);
      if (failure) throw failure;
      return await collect(exchange, result.stdout);
    } finally {
      await rm(runDir, { recursive: true, force: true });
    }
  }

  return {
    /** Heading levels by font size and the running lines of `pages`, for every run after it. */
    survey(input: string, pages: number[], dropRunning: boolean, call: EngineCallOptions) {
      return driver(
        input,
        { mode: 'survey', pages, drop_running: dropRunning },
        call,
        async (_, stdout) => JSON.parse(stdout) as StructureSurvey,
      );
    },

    /**
     * Converts one run of pages into `output` (Markdown, or JSON blocks separated by commas);
     * images, when asked for, are moved into `imageDir`.
     */
    convert(input: string, output: string, imageDir: string, job: StructureRun, call: EngineCallOptions) {
      const body = {
        mode: 'convert',
        output: `${EXCHANGE}/document`,
        format: job.format,
        pages: job.pages,
        page_markers: job.pageMarkers,
        images: job.images,
        survey: job.survey,
      };
      return driver(input, body, call, async (exchange, stdout) => {
        await copyFile(path.join(exchange, 'document'), output).catch(() => {
          throw new QuireError('engine_failed', 'pymupdf4llm wrote no document');
        });
        const images = job.images ? await copyImages(path.join(exchange, 'images'), imageDir) : [];
        return { counts: JSON.parse(stdout) as StructureCounts, images };
      });
    },
  };
}

async function copyImages(from: string, to: string): Promise<string[]> {
  const names = (await readdir(from).catch(() => [] as string[])).sort();
  const copied: string[] = [];
  for (const name of names) {
    await copyFile(path.join(from, name), path.join(to, name));
    copied.push(path.join(to, name));
  }
  return copied;
}

export type Pymupdf4llm = ReturnType<typeof createPymupdf4llm>;
