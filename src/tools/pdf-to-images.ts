// pdf-to-images: renders selected pages to PNG or JPEG. pdftoppm rasterises to raw PPM (fast) and
// sharp encodes (tools.md measured pdftoppm's own PNG encoder ~20x slower than its rasteriser).
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import sharp from 'sharp';
import { QuireError } from '../errors/quire-error.js';
import { engineCall, onlyPdf } from './lib/inputs.js';
import { fileStem, workFile } from './lib/output-name.js';
import { checkPagePixels } from './lib/page-pixels.js';
import { PageSelectionSchema, pageRuns, resolvePageSet } from './lib/page-selection.js';
import { StringEnum } from './lib/schema.js';
import { defineTool, type ToolContext } from './lib/types.js';
import { writeZip } from './lib/zip.js';

export { MAX_PAGE_PIXELS } from './lib/page-pixels.js';

const options = Type.Object(
  {
    format: Type.Optional(StringEnum(['png', 'jpeg'], { default: 'png', description: 'Image format.' })),
    dpi: Type.Optional(
      Type.Integer({
        minimum: 36,
        maximum: 600,
        default: 150,
        description: 'Resolution in dots per inch; an image is page size (pt) × dpi / 72 pixels.',
        examples: [150, 300],
      }),
    ),
    quality: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: 85,
        description: 'JPEG quality (ignored for PNG).',
        examples: [85],
      }),
    ),
    pages: Type.Optional(PageSelectionSchema('Pages to render; empty or omitted = all pages.')),
  },
  {
    additionalProperties: false,
    examples: [
      { format: 'png', dpi: 72, pages: '1' },
      { format: 'jpeg', dpi: 100, quality: 80, pages: '1-2' },
    ],
  },
);

type Options = Static<typeof options>;

/** Pages rasterised per pdftoppm run: bounds the PPM files on disk while keeping runs few. */
const PAGES_PER_RUN = 8;

/** Binary PPM/PGM header (netpbm: "P6 <w> <h> <maxval>" + one whitespace byte). */
function ppmHeader(bytes: Buffer): { width: number; height: number; channels: 1 | 3; offset: number } {
  const m = /^P([56])\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(bytes.subarray(0, 64).toString('latin1'));
  if (m?.[4] !== '255') throw new QuireError('engine_failed', 'pdftoppm wrote an unexpected image');
  return { width: Number(m[2]), height: Number(m[3]), channels: m[1] === '5' ? 1 : 3, offset: m[0].length };
}

async function encode(ppm: string, output: string, opts: Options): Promise<void> {
  const bytes = await readFile(ppm);
  await rm(ppm, { force: true });
  const { width, height, channels, offset } = ppmHeader(bytes);
  // withDensity writes the dpi as PNG pHYs / JPEG JFIF density, so viewers print at true size.
  const image = sharp(bytes.subarray(offset), {
    raw: { width, height, channels },
    limitInputPixels: false,
  }).withDensity(opts.dpi ?? 150);
  const encoded =
    opts.format === 'jpeg' ? image.jpeg({ quality: opts.quality ?? 85 }) : image.png({ compressionLevel: 6 });
  await encoded.toFile(output);
}

/** Refuses any selected page whose render would exceed MAX_PAGE_PIXELS, before rendering any. */
function checkPixels(ctx: ToolContext<Options>, input: string, pages: number[], count: number) {
  return checkPagePixels(ctx.engines.poppler, input, pages, count, ctx.options.dpi ?? 150, engineCall(ctx));
}

export const pdfToImagesTool = defineTool({
  name: 'pdf-to-images',
  title: 'Render pages to images',
  description: 'Renders the selected pages to PNG or JPEG at a given dpi; several pages come as a ZIP.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'application/zip', parts: ['image/png', 'image/jpeg'] },
  engines: ['qpdf', 'poppler'],
  steps: { inspect: 5, render: 90, package: 5 },
  async run(ctx) {
    const { input, pageCount: count } = onlyPdf(ctx);
    const opts = ctx.options;
    const pages = resolvePageSet(opts.pages, count);
    await checkPixels(ctx, input.path, pages, count);

    ctx.progress.step('render');
    const ext = opts.format === 'jpeg' ? 'jpg' : 'png';
    const stem = fileStem(input.name);
    const width = String(count).length;
    const images: { path: string; name: string }[] = [];
    let encoded = 0;
    for (const run of pageRuns(pages, PAGES_PER_RUN)) {
      // Encoding (sharp, thread pool) overlaps pdftoppm rendering the next page of the run.
      let encoding = Promise.resolve();
      const prefix = workFile(ctx.workDir, 'page', '');
      const onPage = (page: number, file: string) => {
        const output = workFile(ctx.workDir, `page-${page}`, ext);
        images.push({ path: output, name: `${stem}-${String(page).padStart(width, '0')}.${ext}` });
        encoding = encoding.then(async () => {
          ctx.signal.throwIfAborted();
          await encode(path.resolve(ctx.workDir, file), output, opts);
          ctx.progress.fraction(++encoded, pages.length);
        });
      };
      try {
        await ctx.engines.poppler.renderPpm(
          input.path,
          run,
          opts.dpi ?? 150,
          prefix,
          engineCall(ctx),
          onPage,
        );
      } catch (err) {
        // The engine's error is the one to report; a pending encode must not reject unobserved.
        await encoding.catch(() => {});
        throw err;
      }
      await encoding;
    }
    if (images.length !== pages.length) {
      throw new QuireError('engine_failed', `pdftoppm rendered ${images.length} of ${pages.length} pages`);
    }

    ctx.progress.step('package');
    const facts = { pages: pages.length, dpi: opts.dpi ?? 150, format: opts.format ?? 'png' };
    const contentType = ext === 'png' ? 'image/png' : 'image/jpeg';
    if (images.length === 1) return { ...images[0]!, contentType, facts };
    const zip = workFile(ctx.workDir, 'images', 'zip');
    await writeZip(images, zip, ctx.signal);
    const parts = images.map((image) => ({ ...image, contentType }));
    return { path: zip, name: `${stem}-images.zip`, contentType: 'application/zip', facts, parts };
  },
});
