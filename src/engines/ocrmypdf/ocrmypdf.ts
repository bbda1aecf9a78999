// ocrmypdf adapter: OCR (Tesseract) of a PDF or an image into a searchable PDF, and PDF/A
// conversion without OCR. ocrmypdf starts gs and tesseract children; they share its process group,
// so the runner's group kill ends them with it.
import path from 'node:path';
import { QuireError } from '../errors/quire-error.js';
import { type RunResult, run, throwIfLimitHit } from '../process/runner.js';
import type { EngineCallOptions, EngineDefaults } from './call-options.js';
import { toRunOptions } from './call-options.js';

export type OcrMode = 'skip-text' | 'force' | 'redo';
export type PdfaPart = '1' | '2' | '3';

export interface OcrOptions {
  languages: readonly string[];
  mode: OcrMode;
  deskew: boolean;
  rotatePages: boolean;
  /** `undefined` = plain PDF; otherwise PDF/A-<part>b. */
  pdfa?: PdfaPart;
  /** Images carry no page size; ocrmypdf refuses one without a DPI unless told what to assume. */
  imageInput: boolean;
}

const MODE_FLAG: Record<OcrMode, string> = {
  'skip-text': '--skip-text',
  force: '--force-ocr',
  redo: '--redo-ocr',
};

/** A scan without resolution metadata is most likely 300 dpi, the common scanner default. */
const ASSUMED_IMAGE_DPI = '300';

/** The full ocrmypdf argv for an OCR run (exported for the argv unit test). */
export function ocrArgs(input: string, output: string, o: OcrOptions): string[] {
  return [
    // -v1 prefixes each per-page message with the page number: the only per-page signal there is.
    '-v1',
    '-l',
    o.languages.join('+'),
    MODE_FLAG[o.mode],
    ...(o.deskew ? ['--deskew'] : []),
    ...(o.rotatePages ? ['--rotate-pages'] : []),
    ...(o.imageInput ? ['--image-dpi', ASSUMED_IMAGE_DPI] : []),
    '--output-type',
    o.pdfa ? `pdfa-${o.pdfa}` : 'pdf',
    path.resolve(input),
    path.resolve(output),
  ];
}

/**
 * PDF/A without OCR: `--skip-text` keeps pages that have text as they are and
 * `--tesseract-timeout 0` turns OCR off for the others, leaving only ocrmypdf's Ghostscript
 * PDF/A pass and its pikepdf fix-ups (XMP, OutputIntent). `--optimize 0` keeps images untouched.
 */
export function pdfaArgs(input: string, output: string, part: PdfaPart): string[] {
  return [
    '-v1',
    '--skip-text',
    '--tesseract-timeout',
    '0',
    '--optimize',
    '0',
    '--output-type',
    `pdfa-${part}`,
    path.resolve(input),
    path.resolve(output),
  ];
}

/** `    3 Rasterize with …`: ocrmypdf -v1 names the page a message is about in the first column. */
const PAGE_LINE = /^\s+(\d+)\s/;

/** Feeds ocrmypdf lines; reports pages finished as (distinct pages started − 1) of `total`. */
export function ocrmypdfProgressTracker(
  total: number,
  onProgress: (done: number, total: number) => void,
): (line: string) => void {
  const seen = new Set<number>();
  return (line) => {
    const match = PAGE_LINE.exec(line);
    if (!match) return;
    const page = Number(match[1]);
    if (page < 1 || page > total || seen.has(page)) return;
    seen.add(page);
    onProgress(seen.size - 1, total);
  };
}

/**
 * ocrmypdf's documented exit codes (ocrmypdf.exceptions.ExitCode): 2 input not a readable PDF or
 * image, 4 output failed validation, 6 page already has text (only without a mode flag), 8 the
 * PDF is encrypted, 10 PDF/A conversion failed.
 */
const EXIT = { ok: 0, badInput: 2, invalidOutput: 4, encrypted: 8, pdfaFailed: 10 } as const;

/** ocrmypdf exits 2 also for an image without resolution it cannot place; name that case. */
const IMAGE_DPI = /DPI|resolution/i;

export function ocrmypdfFailure(result: RunResult): QuireError | undefined {
  throwIfLimitHit(result);
  switch (result.exitCode) {
    case EXIT.ok:
      return undefined;
    case EXIT.encrypted:
      return new QuireError('pdf_encrypted', 'The PDF is encrypted; unlock it first');
    case EXIT.badInput:
      return IMAGE_DPI.test(result.stderrTail)
        ? new QuireError('engine_failed', 'The image has no usable resolution')
        : new QuireError('pdf_corrupt', 'The file could not be read as a PDF or image');
    case EXIT.invalidOutput:
    case EXIT.pdfaFailed:
      return new QuireError('engine_failed', 'ocrmypdf could not produce a valid output');
    default: {
      const how = result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
      return new QuireError('engine_failed', `ocrmypdf ${how}`);
    }
  }
}

export function createOcrmypdf(defaults: EngineDefaults, opts: { isolateNetwork: boolean }) {
  const exec = async (args: string[], call: EngineCallOptions, onLine?: (line: string) => void) => {
    const result = await run(
      'ocrmypdf',
      args,
      toRunOptions(defaults, call, {
        ...(onLine ? { onStderrLine: onLine } : {}),
        // One Tesseract thread per process: ocrmypdf already runs pages in parallel, and nested
        // OpenMP threads on a shared 2-core host made one page ten times slower (measured).
        env: { OMP_THREAD_LIMIT: '1' },
        ...(opts.isolateNetwork ? { network: false } : {}),
      }),
    );
    const failure = ocrmypdfFailure(result);
    if (failure) throw failure;
  };

  return {
    /** OCRs `input` (PDF with `pageCount` pages, or one image) into `output`. */
    async ocr(input: string, output: string, o: OcrOptions, pageCount: number, call: EngineCallOptions) {
      const onLine = call.onProgress ? ocrmypdfProgressTracker(pageCount, call.onProgress) : undefined;
      await exec(ocrArgs(input, output, o), call, onLine);
    },

    /** Converts `input` to PDF/A-<part>b without OCR. */
    async pdfa(input: string, output: string, part: PdfaPart, pageCount: number, call: EngineCallOptions) {
      const onLine = call.onProgress ? ocrmypdfProgressTracker(pageCount, call.onProgress) : undefined;
      await exec(pdfaArgs(input, output, part), call, onLine);
    },
  };
}

export type Ocrmypdf = ReturnType<typeof createOcrmypdf>;
