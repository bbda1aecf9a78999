// ocrmypdf adapter: OCR (Tesseract) of a PDF or an image into a searchable PDF, and PDF/A
// conversion without OCR. ocrmypdf starts gs and tesseract children; they share its process group,
// so the runner's group kill ends them with it.
import path from 'node:path';
import { LineBuffer } from '../../process/line-buffer.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { runEngine, toRunOptions } from '../call-options.js';
import { ocrmypdfFailure } from './failure.js';
import { OcrmypdfTracker } from './progress.js';

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

export function createOcrmypdf(defaults: EngineDefaults, opts: { isolateNetwork: boolean }) {
  /** Runs ocrmypdf on a PDF of `pageCount` pages, its per-page progress left in the call's slot. */
  const exec = async (args: string[], call: EngineCallOptions, pageCount: number) => {
    const lines = call.progress ? new LineBuffer() : undefined;
    if (lines) call.progress?.set(new OcrmypdfTracker(lines, pageCount));
    const result = await runEngine(
      defaults,
      'ocrmypdf',
      args,
      toRunOptions(defaults, call, {
        ...(lines ? { stderrLines: lines } : {}),
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
      await exec(ocrArgs(input, output, o), call, pageCount);
    },

    /** Converts `input` to PDF/A-<part>b without OCR. */
    async pdfa(input: string, output: string, part: PdfaPart, pageCount: number, call: EngineCallOptions) {
      await exec(pdfaArgs(input, output, part), call, pageCount);
    },
  };
}

export type Ocrmypdf = ReturnType<typeof createOcrmypdf>;
