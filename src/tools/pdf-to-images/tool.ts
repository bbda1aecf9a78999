// pdf-to-images: renders selected pages to PNG or JPEG, several page ranges at once within the
// job's CPU share (render-pages.ts), and packs several pages as a ZIP.
import { type Static, Type } from '@sinclair/typebox';
import { engineCall } from '../framework/engine-call.js';
import { onlyPdf } from '../framework/inputs.js';
import { fileStem, workFile } from '../framework/output-name.js';
import { PageSelectionSchema, resolvePageSet } from '../framework/page-selection.js';
import { StringEnum } from '../framework/schema.js';
import { defineTool, type ToolContext } from '../framework/types.js';
import { writeZip } from '../framework/zip.js';
import { checkPagePixels } from '../shared/page-pixels.js';
import { renderPages } from './render-pages.js';

export { MAX_PAGE_PIXELS } from '../shared/page-pixels.js';

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

/** Refuses any selected page whose render would exceed MAX_PAGE_PIXELS, before rendering any. */
function checkPixels(ctx: ToolContext<Options>, input: string, pages: number[], count: number) {
  return checkPagePixels(ctx.engines.poppler, input, pages, count, ctx.options.dpi ?? 150, engineCall(ctx));
}

export const pdfToImagesTool = defineTool({
  name: 'pdf-to-images',
  title: 'Render pages to images',
  group: 'Content and images',
  keywords: ['png', 'jpeg', 'jpg', 'render', 'convert to image'],
  description: 'Renders the selected pages to PNG or JPEG at a given dpi; several pages come as a ZIP.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'application/zip', parts: ['image/png', 'image/jpeg'] },
  engines: ['qpdf', 'poppler'],
  steps: { inspect: 5, render: 90, package: 5 },
  async run(ctx) {
    const { input, pageCount: count } = await onlyPdf(ctx);
    const opts = ctx.options;
    const pages = resolvePageSet(opts.pages, count);
    const largest = await checkPixels(ctx, input.path, pages, count);

    ctx.progress.step('render');
    const rendered = await renderPages(ctx.engines, {
      input: input.path,
      pages,
      dpi: opts.dpi ?? 150,
      format: opts.format ?? 'png',
      quality: opts.quality ?? 85,
      largest,
      call: engineCall(ctx),
      signal: ctx.signal,
      onPage: (done, total) => ctx.progress.fraction(done, total),
    });
    const ext = opts.format === 'jpeg' ? 'jpg' : 'png';
    const stem = fileStem(input.name);
    const width = String(count).length;
    const images = rendered.map(({ page, path }) => ({
      path,
      name: `${stem}-${String(page).padStart(width, '0')}.${ext}`,
    }));

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
