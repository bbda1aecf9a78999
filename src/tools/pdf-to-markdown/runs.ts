// The conversion of pdf-to-markdown in runs of pages: one survey of all selected pages (heading levels,
// running lines), then one engine run per run of pages, each appended to the document as it ends. A
// 1,000-page input is 20 short processes under the engine limits, not one long one.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { type EngineCallOptions, ProgressSlot } from '../../engines/call-options.js';
import type { Pymupdf4llm, StructureCounts } from '../../engines/pymupdf4llm/pymupdf4llm.js';

/**
 * Pages per engine run: pymupdf4llm takes from a tenth of a second to over a second a page on a busy
 * 2-core host, so 50 pages stay far inside the engine time limit, and a run's memory is that of one
 * page at a time plus the interpreter.
 */
export const PAGES_PER_RUN = 50;

export interface ConvertSpec {
  input: string;
  output: string;
  /** Each run's document, overwritten run after run. */
  scratch: string;
  imageDir: string;
  format: 'markdown' | 'json';
  pages: number[];
  pageMarkers: boolean;
  dropRunning: boolean;
  images: boolean;
}

export async function convertInRuns(
  engine: Pymupdf4llm,
  spec: ConvertSpec,
  call: EngineCallOptions,
): Promise<{ counts: StructureCounts; images: string[] }> {
  const { progress, ...quiet } = call;
  const survey = await engine.survey(spec.input, spec.pages, spec.dropRunning, quiet);
  const json = spec.format === 'json';
  const counts: StructureCounts = { pages: 0, headings: 0, tables: 0, images: 0, blocks: 0 };
  const images: string[] = [];
  const out = createWriteStream(spec.output, { mode: 0o600 });
  const write = async (chunk: string) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  try {
    if (json) await write('{"blocks":[');
    for (let start = 0; start < spec.pages.length; start += PAGES_PER_RUN) {
      const pages = spec.pages.slice(start, start + PAGES_PER_RUN);
      const done = start;
      const run = await engine.convert(
        spec.input,
        spec.scratch,
        spec.imageDir,
        { format: spec.format, pages, pageMarkers: spec.pageMarkers, images: spec.images, survey },
        { ...quiet, ...(progress ? { progress: runSlot(progress, done, spec.pages.length) } : {}) },
      );
      // Blocks of two runs are joined by a comma; a run without blocks adds nothing.
      if (json && counts.blocks > 0 && run.counts.blocks > 0) await write(',');
      for (const key of Object.keys(counts) as (keyof StructureCounts)[]) counts[key] += run.counts[key];
      images.push(...run.images);
      await pipeline(createReadStream(spec.scratch), out, { end: false });
    }
    if (json) await write(`],"pages":${spec.pages.length}}\n`);
  } finally {
    out.end();
    await once(out, 'close');
  }
  return { counts, images };
}

/**
 * The slot of one run of pages: the tool's slot reads it as pages `done` + the run's own of `total`,
 * so the conversion's progress spans its runs. Reading stays in tools/ and goes down to the engine.
 */
function runSlot(outer: ProgressSlot, done: number, total: number): ProgressSlot {
  const inner = new ProgressSlot();
  outer.set({ read: () => ({ done: done + (inner.read()?.done ?? 0), total }) });
  return inner;
}
