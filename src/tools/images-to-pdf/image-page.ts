// One image (or one TIFF page) as a one-page PDF, for images-to-pdf. JPEGs go in byte for byte as
// DCTDecode (pdf-lib parses only the header) with their EXIF orientation applied by the placement
// matrix; other formats are decoded by sharp (orientation applied) and stored Flate-compressed.
import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  type PDFRef,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import sharp, { type Sharp } from 'sharp';
import { QuireError } from '../../errors/quire-error.js';

const deflateAsync = promisify(deflate);

/** Width/height of the area an image is placed in, and where; in points. */
export interface Placement {
  pageWidth: number;
  pageHeight: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Source facts the layout needs: pixel size as displayed (after EXIF orientation) and dpi. */
export interface ImageFacts {
  width: number;
  height: number;
  dpi: number | undefined;
}

/**
 * The matrix mapping the image's unit square onto the placement so the image appears as EXIF
 * orientation `o` says it should be viewed (TIFF 6.0 tag 274: 1 = as stored … 8 = turned 90° ccw).
 */
export function orientationMatrix(o: number, p: Placement): [number, number, number, number, number, number] {
  const { x, y, width: w, height: h } = p;
  switch (o) {
    case 2:
      return [-w, 0, 0, h, x + w, y];
    case 3:
      return [-w, 0, 0, -h, x + w, y + h];
    case 4:
      return [w, 0, 0, -h, x, y + h];
    case 5:
      return [0, -h, -w, 0, x + w, y + h];
    case 6:
      return [0, -h, w, 0, x, y + h];
    case 7:
      return [0, h, w, 0, x, y];
    case 8:
      return [0, h, -w, 0, x + w, y];
    default:
      return [w, 0, 0, h, x, y];
  }
}

async function onePage(ref: (doc: PDFDocument) => Promise<PDFRef>, orientation: number, layout: Placement) {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([layout.pageWidth, layout.pageHeight]);
  const name = page.node.newXObject('Image', await ref(doc));
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(...orientationMatrix(orientation, layout)),
    drawObject(name),
    popGraphicsState(),
  );
  return doc.save({ useObjectStreams: false });
}

/** A JPEG's stream is the file itself: embedded unchanged, so quality and size stay as they were. */
export async function jpegPage(file: string, orientation: number, layout: Placement, output: string) {
  const bytes = await readFile(file);
  const pdf = await onePage(async (doc) => (await doc.embedJpg(bytes)).ref, orientation, layout);
  await writeFile(output, pdf, { mode: 0o600 });
}

/**
 * Decodes page `index` of a non-JPEG image to 8-bit grey or RGB (+ its alpha as a soft mask) and
 * stores it with Flate. Decoding and compression run on the thread pool, not the event loop.
 */
export async function decodedPage(
  file: string,
  index: number,
  maxPixels: number,
  layoutFor: (facts: ImageFacts) => Placement,
  output: string,
) {
  const source = sharp(file, { page: index, limitInputPixels: maxPixels }).rotate();
  const decode = async (pipeline: Sharp) =>
    pipeline
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true })
      .catch((err: unknown) => {
        throw new QuireError('unsupported_file', 'An image could not be decoded', { cause: err });
      });
  const meta = await source.metadata();
  const grey = meta.space === 'b-w' || meta.space === 'grey16';
  const colour = await decode(
    source
      .clone()
      .removeAlpha()
      .toColourspace(grey ? 'b-w' : 'srgb'),
  );
  const alpha = meta.hasAlpha ? await decode(source.clone().extractChannel('alpha')) : undefined;
  const { width, height, channels } = colour.info;
  const pixels = { Width: width, Height: height, BitsPerComponent: 8 };
  const layout = layoutFor({ width, height, dpi: meta.density });
  const pdf = await onePage(
    async (doc) => {
      const image: Record<string, string | number | PDFRef> = {
        Type: 'XObject',
        Subtype: 'Image',
        ...pixels,
        ColorSpace: channels === 1 ? 'DeviceGray' : 'DeviceRGB',
        Filter: 'FlateDecode',
      };
      if (alpha) {
        const mask = {
          Type: 'XObject',
          Subtype: 'Image',
          ...pixels,
          ColorSpace: 'DeviceGray',
          Filter: 'FlateDecode',
        };
        image.SMask = doc.context.register(doc.context.stream(await deflateAsync(alpha.data), mask));
      }
      return doc.context.register(doc.context.stream(await deflateAsync(colour.data), image));
    },
    1,
    layout,
  );
  await writeFile(output, pdf, { mode: 0o600 });
}
