// poppler-utils adapter: document facts (pdfinfo), fonts (pdffonts), image inventory (pdfimages
// -list), text (pdftotext) and page rendering (pdftocairo, pdftoppm). poppler takes passwords only
// in argv, so it is only ever given files that open without one (unencrypted or owner-only).
import path from 'node:path';
import type { RunOptions } from '../../process/runner.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { runEngine, toRunOptions } from '../call-options.js';
import { popplerFailure } from './failure.js';
import { parsePageGeometry } from './geometry.js';
import { parseFontList, parseImageList, parsePdfinfo } from './parse.js';
import { type RenderRequest, renderArgs } from './render.js';

export type { PageGeometry } from './geometry.js';
export type { FontEntry, ImageEntry, PdfinfoFacts } from './parse.js';
export type { RenderProgram, RenderRequest } from './render.js';

export interface TextOptions {
  firstPage?: number;
  lastPage?: number;
  layout?: boolean;
}

export function createPoppler(defaults: EngineDefaults, bin: { dir?: string } = {}) {
  const tool = (name: string) => (bin.dir ? path.join(bin.dir, name) : name);
  const exec = async (
    name: string,
    args: string[],
    call: EngineCallOptions,
    extra: Partial<RunOptions> = {},
  ) => {
    const result = await runEngine(
      defaults,
      tool(name),
      args,
      toRunOptions(defaults, call, { captureStdout: true, ...extra }),
    );
    const failure = popplerFailure(result);
    if (failure) throw failure;
    return result.stdout;
  };

  return {
    /** Document facts plus per-page size and rotation for pages 1..pageCount. */
    async info(input: string, pageCount: number, call: EngineCallOptions) {
      const range = pageCount > 0 ? ['-f', '1', '-l', String(pageCount)] : [];
      return parsePdfinfo(await exec('pdfinfo', ['-isodates', ...range, path.resolve(input)], call));
    },

    async fonts(input: string, call: EngineCallOptions) {
      return parseFontList(await exec('pdffonts', [path.resolve(input)], call));
    },

    /** Image inventory, optionally of pages first..last only (same order as `extractImages`). */
    async images(input: string, call: EngineCallOptions, range?: PageSpan) {
      return parseImageList(await exec('pdfimages', ['-list', ...span(range), path.resolve(input)], call));
    },

    /** Trim box and /Rotate of pages 1..pageCount, for building stamps that fit each page. */
    async pageGeometry(input: string, pageCount: number, call: EngineCallOptions) {
      const args = ['-box', '-f', '1', '-l', String(pageCount), path.resolve(input)];
      return parsePageGeometry(await exec('pdfinfo', args, call));
    },

    /**
     * Renders one page range as `<prefix>-<page>.<jpg|tif>` (render.ts). Tools decide which
     * program and how many ranges run at once; each run is its own process group, killed on abort.
     */
    async render(input: string, request: RenderRequest, prefix: string, call: EngineCallOptions) {
      const args = renderArgs(request, path.resolve(input), path.resolve(prefix));
      await exec(request.program, args, call, { captureStdout: false });
    },

    /**
     * Writes the images of pages first..last as `<prefix>-<page>-<n>.<ext>`: JPEG and JPEG 2000
     * byte for byte, CMYK as TIFF, everything else (Flate, CCITT, JBIG2…) decoded to PNG. Not
     * `-all`: that leaves JBIG2 and CCITT as raw streams (.jb2e, .ccitt) no viewer opens.
     */
    async extractImages(input: string, range: PageSpan, prefix: string, call: EngineCallOptions) {
      const args = [
        '-png',
        '-tiff',
        '-j',
        '-jp2',
        '-p',
        ...span(range),
        path.resolve(input),
        path.resolve(prefix),
      ];
      await exec('pdfimages', args, call, { captureStdout: false });
    },

    async text(input: string, options: TextOptions, call: EngineCallOptions): Promise<string> {
      const args = ['-enc', 'UTF-8'];
      if (options.firstPage !== undefined) args.push('-f', String(options.firstPage));
      if (options.lastPage !== undefined) args.push('-l', String(options.lastPage));
      if (options.layout) args.push('-layout');
      return exec('pdftotext', [...args, path.resolve(input), '-'], call);
    },
  };
}

export type Poppler = ReturnType<typeof createPoppler>;

/** An inclusive page range, 1-based. */
export interface PageSpan {
  first: number;
  last: number;
}

function span(range: PageSpan | undefined): string[] {
  return range ? ['-f', String(range.first), '-l', String(range.last)] : [];
}
