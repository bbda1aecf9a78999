// The pixel limit for anything rasterised or recognised page by page (pdf-to-images, ocr), checked
// from sizes alone — page boxes, image headers, `pdfimages -list` — before any engine decodes.
import sharp from 'sharp';
import type { EngineCallOptions } from '../../engines/call-options.js';
import type { Engines } from '../../engines/index.js';
import { QuireError } from '../../errors/quire-error.js';

/**
 * Largest page, in pixels, that is rendered: 100 Mpx is A3/tabloid at 600 dpi or A0 at 200 dpi.
 * The renderer holds a page whole (cairo: 4 bytes a pixel, ~400 MB at this size; measured 395 MB
 * peak) while encoders stream it, and pdf-to-images runs no more pages at once than add up to this
 * (render-pages.ts), so it bounds the job's memory; larger pages fail `limit_page_pixels_exceeded`.
 */
export const MAX_PAGE_PIXELS = 100_000_000;

/**
 * The resolution OCR is judged at: ocrmypdf rasterises each page at the resolution of its images
 * and at least 300 dpi for Tesseract (ocrmypdf docs, "Advanced: --oversample"), so a page that
 * is too large at 300 dpi is too large to recognise.
 */
export const OCR_DPI = 300;

const mpx = (pixels: number) => Math.round(pixels / 1e6);

/** `sentence` says what is too large; the limit and the problem extras are the same everywhere. */
export function pixelLimitError(page: number, pixels: number, sentence: string): QuireError {
  return new QuireError('limit_page_pixels_exceeded', `${sentence}; the limit is ${mpx(MAX_PAGE_PIXELS)}.`, {
    extras: { page, pixels, limit_pixels: MAX_PAGE_PIXELS },
  });
}

/** The largest of the pages checked: what sizes a renderer and bounds how many run at once. */
export interface LargestPage {
  pixels: number;
  /** The longer side, in pixels, of any page checked. */
  side: number;
}

/** Pixels of each page of `pages` (1-based) rendered at `dpi`, from pdfinfo's page sizes. */
export async function checkPagePixels(
  poppler: Engines['poppler'],
  input: string,
  pages: readonly number[],
  pageCount: number,
  dpi: number,
  call: EngineCallOptions,
): Promise<LargestPage> {
  const info = await poppler.info(input, pageCount, call);
  const scale = dpi / 72;
  const largest: LargestPage = { pixels: 0, side: 0 };
  for (const page of pages) {
    const facts = info.pages[page - 1];
    if (!facts) continue;
    const [width, height] = [Math.ceil(facts.width_pt * scale), Math.ceil(facts.height_pt * scale)];
    const pixels = width * height;
    if (pixels > MAX_PAGE_PIXELS) {
      const sentence = `Page ${page} would be ${mpx(pixels)} megapixels at ${dpi} dpi`;
      throw pixelLimitError(page, pixels, sentence);
    }
    largest.pixels = Math.max(largest.pixels, pixels);
    largest.side = Math.max(largest.side, width, height);
  }
  return largest;
}

/**
 * What OCR would have to decode: every page at OCR_DPI and every embedded image at its own size
 * (an 8 KB image can declare 60000×60000 pixels; Tesseract ran 221–323 s on such before failing).
 */
export async function checkOcrPdfPixels(
  poppler: Engines['poppler'],
  input: string,
  pageCount: number,
  call: EngineCallOptions,
): Promise<void> {
  const all = Array.from({ length: pageCount }, (_, i) => i + 1);
  await checkPagePixels(poppler, input, all, pageCount, OCR_DPI, call);
  for (const image of await poppler.images(input, call)) {
    const pixels = image.width * image.height;
    if (pixels > MAX_PAGE_PIXELS) {
      const sentence = `Page ${image.page} holds an image of ${mpx(pixels)} megapixels`;
      throw pixelLimitError(image.page, pixels, sentence);
    }
  }
}

/** An image input's size from its header (sharp reads metadata without decoding pixels). */
export async function checkImagePixels(input: string): Promise<void> {
  // As images-to-pdf: a header sharp cannot read is not an image we can work on.
  const meta = await sharp(input, { limitInputPixels: false })
    .metadata()
    .catch((err: unknown) => {
      throw new QuireError('unsupported_file', 'The image could not be read', { cause: err });
    });
  const pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0);
  if (pixels > MAX_PAGE_PIXELS) throw pixelLimitError(1, pixels, `The image is ${mpx(pixels)} megapixels`);
}
