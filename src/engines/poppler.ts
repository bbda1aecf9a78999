// poppler-utils adapter: document facts (pdfinfo), fonts (pdffonts), image inventory (pdfimages
// -list) and text (pdftotext). poppler takes passwords only in argv, so it is only ever given
// files that open without one (unencrypted or owner-only).
import path from 'node:path';
import { run } from '../process/runner.js';
import type { EngineCallOptions, EngineDefaults } from './call-options.js';
import { toRunOptions } from './call-options.js';
import { popplerFailure } from './failure-map.js';
import { parseFontList, parseImageList, parsePdfinfo } from './poppler-parse.js';

export type { FontEntry, ImageEntry, PdfinfoFacts } from './poppler-parse.js';

export interface TextOptions {
  firstPage?: number;
  lastPage?: number;
  layout?: boolean;
}

export function createPoppler(defaults: EngineDefaults, bin: { dir?: string } = {}) {
  const tool = (name: string) => (bin.dir ? path.join(bin.dir, name) : name);
  const exec = async (name: string, args: string[], call: EngineCallOptions) => {
    const result = await run(tool(name), args, toRunOptions(defaults, call, { captureStdout: true }));
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

    async images(input: string, call: EngineCallOptions) {
      return parseImageList(await exec('pdfimages', ['-list', path.resolve(input)], call));
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
