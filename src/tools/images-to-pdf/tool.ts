// images-to-pdf: one page per image (every page of a multi-page TIFF), in upload order. Each image
// becomes a one-page PDF (pdf-lib, memory bounded by one image) and qpdf joins them on disk.
import { type Static, Type } from '@sinclair/typebox';
import sharp from 'sharp';
import { QuireError } from '../../errors/quire-error.js';
import { engineCallWithProgress } from '../framework/engine-call.js';
import { checkPageLimit } from '../framework/opening.js';
import { outputName, workFile } from '../framework/output-name.js';
import { StringEnum } from '../framework/schema.js';
import { defineTool, type ToolInput } from '../framework/types.js';
import { decodedPage, type ImageFacts, jpegPage, type Placement } from './image-page.js';

const options = Type.Object(
  {
    page_size: Type.Optional(
      StringEnum(['fit', 'a4', 'letter'], {
        default: 'fit',
        description:
          '`fit`: each page takes the image’s own size (at its dpi, 72 when it has none) plus margins; `a4`/`letter`: the image is scaled to fit the page inside the margins, centred.',
      }),
    ),
    orientation: Type.Optional(
      StringEnum(['auto', 'portrait', 'landscape'], {
        default: 'auto',
        description:
          'With `a4`/`letter`: `auto` turns the page landscape for images wider than tall. `portrait`/`landscape` need a fixed page_size.',
      }),
    ),
    margin_mm: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100,
        default: 0,
        description: 'Margin around each image, in millimetres.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{}, { page_size: 'a4', orientation: 'auto', margin_mm: 10 }] },
);

type Options = Static<typeof options>;

const MM = 72 / 25.4;
const PAPER = { a4: [595.276, 841.89], letter: [612, 792] } as const;
/** Acrobat's largest page side (ISO 32000 Annex C): larger `fit` pages are scaled down to it. */
const MAX_PAGE_SIDE_PT = 14_400;
/**
 * Decoded images are held whole as 8-bit RGB for compression (~150 MB at this size); JPEGs are
 * only copied, so they may be larger. Beyond these a job fails `limit_page_pixels_exceeded`.
 */
const MAX_DECODED_PIXELS = 50_000_000;
const MAX_JPEG_PIXELS = 200_000_000;

export function placeImage(image: ImageFacts, opts: Options): Placement {
  const margin = (opts.margin_mm ?? 0) * MM;
  const dpi = image.dpi && image.dpi > 0 ? image.dpi : 72;
  let [w, h] = [(image.width * 72) / dpi, (image.height * 72) / dpi];
  const size = opts.page_size ?? 'fit';
  if (size === 'fit') {
    const shrink = Math.min(1, (MAX_PAGE_SIDE_PT - 2 * margin) / Math.max(w, h));
    [w, h] = [w * shrink, h * shrink];
    return {
      pageWidth: w + 2 * margin,
      pageHeight: h + 2 * margin,
      x: margin,
      y: margin,
      width: w,
      height: h,
    };
  }
  const [short, long] = PAPER[size];
  const orientation = opts.orientation ?? 'auto';
  const landscape = orientation === 'landscape' || (orientation === 'auto' && w > h);
  const [pageWidth, pageHeight] = landscape ? [long, short] : [short, long];
  const scale = Math.min((pageWidth - 2 * margin) / w, (pageHeight - 2 * margin) / h);
  [w, h] = [w * scale, h * scale];
  return { pageWidth, pageHeight, x: (pageWidth - w) / 2, y: (pageHeight - h) / 2, width: w, height: h };
}

function tooLarge(input: ToolInput, pixels: number, limit: number): QuireError {
  return new QuireError(
    'limit_page_pixels_exceeded',
    `The image "${input.name}" has ${Math.round(pixels / 1e6)} megapixels; the limit is ${limit / 1e6}`,
    { extras: { pixels, limit_pixels: limit } },
  );
}

/** Writes one PDF per page of `input` and returns them; only TIFFs have several pages. */
async function imagePages(input: ToolInput, opts: Options, newFile: () => string): Promise<string[]> {
  const meta = await sharp(input.path, { limitInputPixels: false })
    .metadata()
    .catch(() => {
      throw new QuireError('unsupported_file', `The image "${input.name}" could not be read`);
    });
  const pixels = (meta.width ?? 0) * (meta.height ?? 0);
  if (input.contentType === 'image/jpeg') {
    if (pixels > MAX_JPEG_PIXELS) throw tooLarge(input, pixels, MAX_JPEG_PIXELS);
    const orientation = meta.orientation ?? 1;
    const turned = orientation >= 5;
    const facts = {
      width: turned ? meta.height! : meta.width!,
      height: turned ? meta.width! : meta.height!,
      dpi: meta.density,
    };
    const file = newFile();
    await jpegPage(input.path, orientation, placeImage(facts, opts), file);
    return [file];
  }
  if (pixels > MAX_DECODED_PIXELS) throw tooLarge(input, pixels, MAX_DECODED_PIXELS);
  // GIF and WebP animations contribute their first frame; TIFF pages are separate images.
  const count = input.contentType === 'image/tiff' ? (meta.pages ?? 1) : 1;
  const files: string[] = [];
  for (let index = 0; index < count; index++) {
    const file = newFile();
    await decodedPage(input.path, index, MAX_DECODED_PIXELS, (facts) => placeImage(facts, opts), file);
    files.push(file);
  }
  return files;
}

export const imagesToPdfTool = defineTool({
  name: 'images-to-pdf',
  title: 'Images to PDF',
  group: 'Content and images',
  keywords: ['jpg to pdf', 'png to pdf', 'scan', 'photos'],
  description:
    'Makes a PDF with one page per image (JPEG, PNG, TIFF, WebP, GIF); JPEGs are embedded without re-encoding.',
  inputs: {
    minFiles: 1,
    maxFiles: 'plan',
    accepts: ['image/jpeg', 'image/png', 'image/tiff', 'image/webp', 'image/gif'],
  },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { convert: 80, combine: 20 },
  checkRequest(opts) {
    if ((opts.page_size ?? 'fit') === 'fit' && (opts.orientation ?? 'auto') !== 'auto') {
      return [
        {
          pointer: '/options/orientation',
          detail: 'needs page_size "a4" or "letter": with "fit" the page takes the image’s own shape',
        },
      ];
    }
    return [];
  },
  async run(ctx) {
    ctx.progress.step('convert');
    const parts: string[] = [];
    for (const [i, input] of ctx.inputs.entries()) {
      ctx.signal.throwIfAborted();
      parts.push(...(await imagePages(input, ctx.options, () => workFile(ctx.workDir, `image-${i}`))));
      checkPageLimit(parts.length, ctx.limits.maxPages);
      ctx.progress.fraction(i + 1, ctx.inputs.length);
    }

    ctx.progress.step('combine');
    let output = parts[0]!;
    if (parts.length > 1) {
      output = workFile(ctx.workDir, 'images');
      const call = engineCallWithProgress(ctx);
      await ctx.engines.qpdf.merge(
        parts.map((path) => ({ path })),
        output,
        call,
      );
    }
    return {
      path: output,
      name: outputName(ctx.inputs[0]?.name ?? 'images', 'images'),
      contentType: 'application/pdf',
      facts: { pages: parts.length },
    };
  },
});
