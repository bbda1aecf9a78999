// extract-images: the images embedded in selected pages, as a ZIP (pdfimages). An image object used
// on several pages is extracted once; masks and images below `min_size_px` are left out.
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import type { ImageEntry } from '../engines/poppler/poppler.js';
import { engineCall } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { fileStem, workFile } from './framework/output-name.js';
import { PageSelectionSchema, pageRuns, resolvePageSet } from './framework/page-selection.js';
import { defineTool } from './framework/types.js';
import { writeZip, type ZipEntry } from './framework/zip.js';

const options = Type.Object(
  {
    pages: Type.Optional(PageSelectionSchema('Pages to take images from; empty or omitted = all pages.')),
    min_size_px: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        default: 32,
        description: 'Leave out images narrower or lower than this many pixels (icons, rules, spacers).',
        examples: [32],
      }),
    ),
  },
  { additionalProperties: false, examples: [{}, { pages: '1-3', min_size_px: 64 }] },
);

type Options = Static<typeof options>;

/** Pages per pdfimages run: gives per-run progress and bounds the files awaiting the ZIP step. */
const PAGES_PER_RUN = 20;

/** `smask` and `mask` entries are the transparency of another image, not pictures of their own. */
const PICTURE_TYPES = new Set(['image', 'stencil']);

/**
 * pdfimages numbers its files in the order `pdfimages -list` prints the same pages
 * (`<prefix>-<page>-<n>.<ext>`, n counting from 0), which pairs each file with its listing.
 */
async function filesByIndex(dir: string, base: string): Promise<Map<number, string>> {
  const files = new Map<number, string>();
  for (const name of await readdir(dir)) {
    const m = new RegExp(`^${base}-\\d+-(\\d+)\\.[a-z0-9]+$`).exec(name);
    if (m) files.set(Number(m[1]), path.join(dir, name));
  }
  return files;
}

function keep(entry: ImageEntry, minSize: number, seen: Set<string>): boolean {
  if (!PICTURE_TYPES.has(entry.type) || entry.width < minSize || entry.height < minSize) return false;
  // Inline images ("0 0") have no object to share; every other object is taken once.
  if (entry.object === '0 0') return true;
  if (seen.has(entry.object)) return false;
  seen.add(entry.object);
  return true;
}

/** The content type of an extracted file by the extension poppler gave it (JPEG 2000 is the rest). */
const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.tif': 'image/tiff',
};

export const extractImagesTool = defineTool({
  name: 'extract-images',
  title: 'Extract images',
  group: 'Content and images',
  keywords: ['pictures', 'photos', 'export images'],
  description:
    'Extracts the images embedded in the selected pages into a ZIP: JPEG and JPEG 2000 as stored, CMYK as TIFF, others as PNG.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'application/zip', parts: ['image/jpeg', 'image/png', 'image/tiff'] },
  engines: ['qpdf', 'poppler'],
  steps: { inspect: 10, extract: 80, package: 10 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    const opts: Options = ctx.options;
    const pages = resolvePageSet(opts.pages, pageCount);

    ctx.progress.step('extract');
    const stem = fileStem(input.name);
    const seen = new Set<string>();
    const entries: ZipEntry[] = [];
    let done = 0;
    for (const run of pageRuns(pages, PAGES_PER_RUN)) {
      const listing = await ctx.engines.poppler.images(input.path, engineCall(ctx), run);
      const wanted = listing.map((entry) => keep(entry, opts.min_size_px ?? 32, seen));
      if (wanted.some(Boolean)) {
        const prefix = workFile(ctx.workDir, 'img', '');
        await ctx.engines.poppler.extractImages(input.path, run, prefix, engineCall(ctx));
        const files = await filesByIndex(ctx.workDir, path.basename(prefix));
        for (const [index, file] of [...files].sort((a, b) => a[0] - b[0])) {
          const entry = listing[index];
          if (entry && wanted[index]) {
            const ext = path.extname(file);
            entries.push({ path: file, name: `${stem}-p${entry.page}-${entries.length + 1}${ext}` });
          } else {
            await rm(file, { force: true });
          }
        }
      }
      done += run.last - run.first + 1;
      ctx.progress.fraction(done, pages.length);
    }

    ctx.progress.step('package');
    const zip = workFile(ctx.workDir, 'images', 'zip');
    await writeZip(entries, zip, ctx.signal);
    return {
      path: zip,
      name: `${stem}-images.zip`,
      contentType: 'application/zip',
      facts: { images: entries.length },
      parts: entries.map((e) => ({ ...e, contentType: IMAGE_TYPES[path.extname(e.name)] ?? 'image/jp2' })),
    };
  },
});
