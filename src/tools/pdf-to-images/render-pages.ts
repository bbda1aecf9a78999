// Renders a page set to finished PNG or JPEG files: poppler runs over page ranges, several at once
// up to the job's CPU share, with PNG encoding (sharp) overlapping the next range's rendering.
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { EngineCallOptions } from '../../engines/call-options.js';
import type { Engines } from '../../engines/index.js';
import { CAIRO_MAX_SIDE, type RenderRequest, renderedPage } from '../../engines/poppler/render.js';
import { QuireError } from '../../errors/quire-error.js';
import { cpuShare } from '../framework/cpu-share.js';
import { pageRuns } from '../framework/page-selection.js';
import { type LargestPage, MAX_PAGE_PIXELS } from '../shared/page-pixels.js';

export interface RenderJob {
  input: string;
  /** Ascending, without repeats. */
  pages: readonly number[];
  dpi: number;
  format: 'png' | 'jpeg';
  quality: number;
  /** From the pixel check: picks the renderer and bounds how many pages are in memory at once. */
  largest: LargestPage;
  call: EngineCallOptions;
  /** The job's: aborting it kills every engine of the render. */
  signal: AbortSignal;
  /** Called as pages are finished, in no particular order. */
  onPage?: (done: number, total: number) => void;
}

export interface RenderedPage {
  page: number;
  path: string;
}

/**
 * Most pages one engine run takes: a lane re-checks the job's CPU share between runs, so this
 * bounds how long an extra lane keeps a core after another job starts (8 pages ≈ 0.2–0.5 s at
 * 150 dpi).
 */
const MAX_RANGE = 8;
/**
 * Runs per lane, taken from one queue, so a lane that drew cheap pages takes the next run: page
 * costs are uneven (tracemonkey's page 13 costs six times its neighbours): from its per-page CPU
 * times, two runs per lane finish two lanes in 0.28 s against an ideal 0.25 s, one run per lane
 * in 0.34 s (one lane twice as busy as the other).
 * Each extra run re-opens the document (≈ 10 ms). PNG pages are encoded (≈ 20 ms of CPU per letter
 * page at 150 dpi) once their run exits, so PNG takes smaller runs to overlap encoding with rendering.
 */
const RUNS_PER_LANE = { jpeg: 2, png: 3 } as const;

/**
 * Lanes (engine processes at once) for this job now: its CPU share (cpu-share.ts), and no more
 * than keeps the pages in memory at once within one page at the pixel limit, the bound the
 * limit's documentation promises whatever the lane count.
 */
function laneLimit(largest: LargestPage): number {
  const byMemory = Math.max(1, Math.floor(MAX_PAGE_PIXELS / Math.max(1, largest.pixels)));
  return Math.min(cpuShare(), byMemory);
}

/**
 * Renders `job.pages` and returns the files in page order. JPEG comes from the engine's own
 * writer; PNG from an uncompressed TIFF that sharp reads strip by strip, so no page is ever held
 * whole in Node memory. A failure or abort kills every running engine before this rejects.
 */
export async function renderPages(engines: Engines, job: RenderJob): Promise<RenderedPage[]> {
  const lanes = Math.min(laneLimit(job.largest), job.pages.length);
  const size = Math.min(
    MAX_RANGE,
    Math.max(1, Math.ceil(job.pages.length / (lanes * RUNS_PER_LANE[job.format]))),
  );
  const ranges = pageRuns(job.pages, size);
  const stop = new AbortController();
  const signal = AbortSignal.any([job.signal, stop.signal]);
  const call = { ...job.call, signal };
  const failures: unknown[] = [];
  const fail = (error: unknown) => {
    failures.push(error);
    stop.abort(error);
  };
  const done = new Map<number, string>();
  const finish = (page: number, file: string) => {
    done.set(page, file);
    job.onPage?.(done.size, job.pages.length);
  };
  const format = job.format === 'jpeg' ? 'jpeg' : 'raw';
  const program = job.largest.side > CAIRO_MAX_SIDE ? 'pdftoppm' : 'pdftocairo';
  let next = 0;

  const lane = async (index: number) => {
    // One encode at a time per lane, overlapping the lane's next range; failures abort the rest.
    let encoding = Promise.resolve();
    // Lane 0 always runs; the others retire when the job's share shrinks (another job started).
    while (next < ranges.length && !signal.aborted && (index === 0 || index < laneLimit(job.largest))) {
      const rangeIndex = next++;
      const range = ranges[rangeIndex]!;
      const request: RenderRequest = { program, range, dpi: job.dpi, format, quality: job.quality };
      const prefix = `render-${rangeIndex}`;
      try {
        await engines.poppler.render(job.input, request, path.join(call.workDir, prefix), call);
        const files = await rangeFiles(call.workDir, prefix, request);
        for (const [page, file] of files) {
          if (format === 'jpeg') finish(page, file);
          else
            encoding = encoding
              .then(() => encodePng(file, page, job, signal))
              .then((png) => finish(page, png), fail);
        }
      } catch (error) {
        fail(error);
      }
    }
    await encoding;
  };

  await Promise.all(Array.from({ length: Math.max(1, lanes) }, (_, i) => lane(i)));
  if (failures.length > 0) throw failures[0];
  job.signal.throwIfAborted();
  return job.pages.map((page) => {
    const file = done.get(page);
    if (!file) throw new QuireError('engine_failed', `${program} did not render page ${page}`);
    return { page, path: file };
  });
}

/** The files one range wrote, by page; every page of the range must be there. */
async function rangeFiles(
  workDir: string,
  prefix: string,
  request: RenderRequest,
): Promise<Map<number, string>> {
  const files = new Map<number, string>();
  for (const name of await readdir(workDir)) {
    const page = renderedPage(name, prefix, request.format);
    if (page !== undefined) files.set(page, path.join(workDir, name));
  }
  const { first, last } = request.range;
  for (let page = first; page <= last; page++) {
    if (!files.has(page)) {
      throw new QuireError('engine_failed', `${request.program} wrote no image for page ${page}`);
    }
  }
  return files;
}

async function encodePng(tiff: string, page: number, job: RenderJob, signal: AbortSignal): Promise<string> {
  signal.throwIfAborted();
  const output = path.join(job.call.workDir, `page-${page}.png`);
  // withDensity writes the dpi as PNG pHYs, so viewers print at true size.
  await sharp(tiff, { limitInputPixels: false, sequentialRead: true })
    .withDensity(job.dpi)
    .png({ compressionLevel: 6 })
    .toFile(output);
  await rm(tiff, { force: true });
  return output;
}
