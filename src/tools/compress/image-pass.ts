// compress's image pass: re-encodes only the oversized JPEG images of an image-heavy PDF (sharp,
// i.e. libvips with libjpeg's scale-on-load) and swaps them in with qpdf, so text, fonts, vectors
// and every other image stay byte for byte. Whatever it cannot handle safely stays as stored.
import { readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { inflate } from 'node:zlib';
import sharp from 'sharp';
import type { StreamFile } from '../../engines/qpdf/qpdf.js';
import { engineCall } from '../framework/engine-call.js';
import { workFile } from '../framework/output-name.js';
import type { ToolContext } from '../framework/types.js';
import { MAX_PAGE_PIXELS } from '../shared/page-pixels.js';
import { pooled } from '../shared/pooled.js';
import type { ImageCandidate, ImagePlan, Written } from './image-plan.js';
import { estimateJpegQuality } from './jpeg-quality.js';

export interface ImageTarget {
  /** Images whose lowest placed resolution is above this are downsampled… */
  thresholdDpi: number;
  /** …to this resolution. */
  dpi: number;
  /** JPEG quality (libjpeg scale, 1–100). */
  quality: number;
}

/**
 * The same dpi rules as the Ghostscript levels (tools.md), with JPEG qualities picked so the pass
 * lands at or under the matching Ghostscript preset's size (bench `compress`): /printer ≈ 75,
 * /ebook ≈ 60, /screen with QFactor 1.3 ≈ 40.
 */
export const IMAGE_TARGETS: Readonly<Record<'low' | 'medium' | 'high', ImageTarget>> = {
  low: { thresholdDpi: 250, dpi: 200, quality: 75 },
  medium: { thresholdDpi: 200, dpi: 144, quality: 60 },
  high: { thresholdDpi: 100, dpi: 72, quality: 40 },
};

/**
 * A JPEG that needs no downsampling is re-encoded at the level's quality only when that saves at
 * least this share of its bytes (Ghostscript's presets re-encode such images too, e.g. /ebook's
 * sRGB conversion); a smaller gain is not worth a second generation of JPEG loss.
 */
export const MIN_REENCODE_GAIN = 0.1;

const inflateAsync = promisify(inflate);

/** The largest Flate-wrapped JPEG inflated: 64 MB is several times a 600-dpi A3 colour scan page. */
const MAX_JPEG_BYTES = 64 * 1024 ** 2;

/** An image that needs no downsampling is decoded only when saved this far above the target quality. */
const QUALITY_MARGIN = 5;

/**
 * Bicubic, the `/DownsampleType` of Ghostscript's presets, instead of sharp's default Lanczos 3: on
 * the `compress` benchmark's scan, 7 % less CPU for the same size.
 */
const RESAMPLE_KERNEL = 'cubic';

/**
 * At or above this many bits per pixel in the stored JPEG (grainy scans and photos: 1.6–1.8), the
 * new JPEG is written without sharp's second, Huffman-optimising pass (`optimiseCoding`): there it
 * cost 20 % of the pass's CPU for 2.7 % of size. Below it (mostly blank pages, 0.14 on
 * `pdfjs__scan-bad.pdf`) the pass is cheap and the standard tables would make the JPEG 2.5× larger.
 * Either way the picture is the same; only its entropy coding differs.
 */
const DENSE_JPEG_BITS_PER_PIXEL = 1;

/**
 * The JPEG inside a stored image stream: one DCT filter, or DCT wrapped in Flate without a
 * predictor (some writers deflate their JPEGs); undefined for any other filter chain, or a
 * colour-key mask (a lossy re-encode would speckle it).
 */
async function storedJpeg(stream: StreamFile): Promise<Buffer | undefined> {
  const { '/Filter': filter, '/DecodeParms': parms, '/Mask': mask, '/Subtype': subtype } = stream.dict;
  if (subtype !== '/Image' || Array.isArray(mask)) return undefined;
  const chain = Array.isArray(filter) ? filter : [filter];
  if (chain.length === 1 && chain[0] === '/DCTDecode') return readFile(stream.datafile);
  const flateParms = Array.isArray(parms) ? parms[0] : parms;
  if (chain.length !== 2 || chain[0] !== '/FlateDecode' || chain[1] !== '/DCTDecode') return undefined;
  if (flateParms !== undefined && flateParms !== null) return undefined;
  // The inflated JPEG is bounded like any stored image: far above a real one, far below the heap.
  return inflateAsync(await readFile(stream.datafile), { maxOutputLength: MAX_JPEG_BYTES });
}

/**
 * The stream re-encoded at the target (downsampled when above its threshold), or undefined to keep
 * it: not a plain JPEG, one with its own ICC profile or CMYK (sharp would convert the pixels, the
 * PDF colour space would not change), components other than its colour space's, or too little gain.
 */
async function reencode(
  stream: StreamFile,
  { ppi, components }: ImageCandidate,
  target: ImageTarget,
): Promise<StreamFile | undefined> {
  const width = stream.dict['/Width'];
  const height = stream.dict['/Height'];
  if (typeof width !== 'number' || typeof height !== 'number') return undefined;
  const stored = await storedJpeg(stream);
  if (!stored) return undefined;
  // One decoded image at a time per lane, bounded like a rendered page; a larger one stays as stored.
  const limits = { limitInputPixels: MAX_PAGE_PIXELS };
  const meta = await sharp(stored, limits).metadata();
  if (
    meta.format !== 'jpeg' ||
    meta.hasProfile ||
    meta.space === 'cmyk' ||
    meta.width !== width ||
    meta.channels !== components
  )
    return undefined;
  const scale = ppi > target.thresholdDpi ? target.dpi / ppi : 1;
  // Saved at about the target's quality or below: re-encoding it could only lose detail.
  if (scale === 1 && (estimateJpegQuality(stored) ?? 100) <= target.quality + QUALITY_MARGIN)
    return undefined;
  const keepBelow = scale < 1 ? stored.length : stored.length * (1 - MIN_REENCODE_GAIN);
  const size = {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
  // fit 'fill': the exact scaled size, whatever rounding does to the aspect ratio (the page maps it).
  const resized = sharp(stored, limits).resize({ ...size, fit: 'fill', kernel: RESAMPLE_KERNEL });
  // sharp writes sRGB unless told: a grey image must stay one component for its grey colour space.
  const data = await (meta.channels === 1 ? resized.toColourspace('b-w') : resized)
    .jpeg({
      quality: target.quality,
      optimiseCoding: (stored.length * 8) / (width * height) < DENSE_JPEG_BITS_PER_PIXEL,
    })
    .toBuffer({ resolveWithObject: true });
  if (data.info.channels !== meta.channels || data.data.length >= keepBelow) return undefined;
  const datafile = `${stream.datafile}.jpg`;
  await writeFile(datafile, data.data, { mode: 0o600 });
  const { '/DecodeParms': _parms, '/Length': _length, ...dict } = stream.dict;
  return {
    dict: { ...dict, '/Width': size.width, '/Height': size.height, '/Filter': '/DCTDecode' },
    datafile,
  };
}

/**
 * Writes the PDF with the plan's candidates re-encoded and the lossless optimisation applied, and
 * returns it with the number of images replaced (0: only the lossless rewrite) and, when qpdf
 * warned about the input, its page count.
 */
export async function imagePass<O>(
  ctx: ToolContext<O>,
  input: string,
  plan: ImagePlan,
  target: ImageTarget,
): Promise<Written & { images: number }> {
  try {
    return await writeImagePass(ctx, input, plan, target);
  } finally {
    await plan.rewrite; // a rewrite written ahead is done before anything else runs
  }
}

async function writeImagePass<O>(
  ctx: ToolContext<O>,
  input: string,
  plan: ImagePlan,
  target: ImageTarget,
): Promise<Written & { images: number }> {
  const call = engineCall(ctx);
  const { candidates } = plan;
  const streams =
    plan.streams ??
    (await ctx.engines.qpdf.rawStreams(
      input,
      candidates.map((c) => c.object),
      workFile(ctx.workDir, 'stream', ''),
      call,
    ));
  const update: Record<string, { stream: StreamFile }> = {};
  let done = 0;
  await pooled(candidates, availableParallelism(), async (candidate) => {
    ctx.signal.throwIfAborted();
    const stream = streams.get(candidate.object);
    // A JPEG sharp cannot read stays as it is: the PDF reader's decoder may still manage.
    const replaced = stream ? await reencode(stream, candidate, target).catch(() => undefined) : undefined;
    if (replaced) update[`obj:${candidate.object} R`] = { stream: replaced };
    ctx.progress.fraction(++done, candidates.length);
  });
  const images = Object.keys(update).length;
  const file = workFile(ctx.workDir, images > 0 ? 'images' : 'lossless');
  // No image gained: the JPEGs that dominate the file are already as small as the level makes
  // them, so the lossless rewrite is what is left to gain (Ghostscript runs if even that fails).
  if (images === 0) {
    const ahead = await plan.rewrite;
    // Kept now, so counted now when qpdf warned; a copy without pages is written again, and fails.
    const pages = ahead?.warned ? await ctx.engines.qpdf.pageCount(ahead.file, call) : undefined;
    if (ahead && pages !== 0) return counted(ahead.file, images, pages);
    return counted(file, images, await ctx.engines.qpdf.optimize(input, file, call));
  }
  const updateFile = workFile(ctx.workDir, 'images-update', 'json');
  await writeFile(updateFile, JSON.stringify({ qpdf: [{ jsonversion: 2 }, update] }), { mode: 0o600 });
  return counted(file, images, await ctx.engines.qpdf.replaceStreamsOptimized(input, updateFile, file, call));
}

function counted(file: string, images: number, pages: number | undefined): Written & { images: number } {
  return pages === undefined ? { file, images } : { file, images, pages };
}
