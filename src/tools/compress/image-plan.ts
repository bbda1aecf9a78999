// What compress's image pass (image-pass.ts) will do to a file: the JPEG images it may re-encode,
// from `pdfimages -list`, with what can be written beside the list (the streams, the lossless
// rewrite) so that fewer engine runs wait on one another.
import type { ImageEntry } from '../../engines/poppler/poppler.js';
import type { StreamFile } from '../../engines/qpdf/qpdf.js';
import { engineCall } from '../framework/engine-call.js';
import { workFile } from '../framework/output-name.js';
import type { ToolContext } from '../framework/types.js';

/**
 * The pass is taken only when the JPEGs it may re-encode hold at least this share of the file:
 * below it the rest of the file (fonts, Flate or bilevel images, content) is where Ghostscript
 * finds its gain.
 */
export const MIN_IMAGE_SHARE = 0.5;

export interface ImageCandidate {
  /** `N G` of the image XObject. */
  object: string;
  /** The highest resolution it is placed at (the lower axis of each placement). */
  ppi: number;
  /** Components of its PDF colour space (1 or 3): the JPEG must have as many. */
  components: number;
}

/** pdfimages' colours that a 1- or 3-component JPEG re-encode keeps exactly (not CMYK, not indexed). */
const JPEG_COLOURS = new Set(['gray', 'rgb', 'icc']);

function reencodable(entry: ImageEntry): boolean {
  return (
    entry.type === 'image' &&
    entry.encoding === 'jpeg' &&
    entry.bpc === 8 &&
    (entry.components === 1 || entry.components === 3) &&
    JPEG_COLOURS.has(entry.color) &&
    entry.object !== '0 0'
  );
}

/**
 * The JPEG images the pass would re-encode, or undefined when they hold too little of the file for
 * the pass to beat Ghostscript. An object placed anywhere as something else (a soft mask, a
 * stencil) is never touched; its highest placed resolution decides, so no placement ends below the
 * target. Bilevel (CCITT, JBIG2), CMYK, indexed, JPEG 2000 and Flate images are never candidates.
 */
export function planImagePass(images: readonly ImageEntry[], fileSize: number): ImageCandidate[] | undefined {
  const byObject = new Map<string, { ok: boolean; ppi: number; bytes: number; components: number }>();
  for (const entry of images) {
    const seen = byObject.get(entry.object) ?? {
      ok: true,
      ppi: 0,
      bytes: entry.bytes,
      components: entry.components,
    };
    seen.ok &&= reencodable(entry);
    seen.ppi = Math.max(seen.ppi, Math.min(entry.xPpi, entry.yPpi));
    byObject.set(entry.object, seen);
  }
  const picked = [...byObject].filter(([, s]) => s.ok && s.ppi > 0);
  const bytes = picked.reduce((sum, [, s]) => sum + s.bytes, 0);
  if (picked.length === 0 || bytes < fileSize * MIN_IMAGE_SHARE) return undefined;
  return picked.map(([object, s]) => ({ object, ppi: s.ppi, components: s.components }));
}

/**
 * A file at least this heavy per page is nearly all images (a 150-dpi colour page scan is ≈ 180 KB,
 * a page of text a few KB, an 18-page bilevel scan 72 KB a page): every stream of it is dumped while
 * `pdfimages -list` runs rather than the candidates after it, which takes one engine run off the
 * job's path (two engine processes at once, each under the engine limits, as pdf-to-images runs its
 * page ranges). Lighter files mostly go to Ghostscript, where the dump would be wasted (but see
 * DUMP_AHEAD_ANY_MAX_BYTES).
 */
export const DUMP_AHEAD_MIN_BYTES_PER_PAGE = 96 * 1024;

/**
 * A file this small is dumped ahead whatever its pages: writing all of it costs qpdf less than the
 * process start a dump after the list would (pdfjs__scan-bad.pdf: one 300-dpi page in 30 KB).
 */
export const DUMP_AHEAD_ANY_MAX_BYTES = 64 * 1024;

/**
 * Up to this size the lossless rewrite that the pass falls back to when no image gains (JPEGs
 * already as small as the level makes them: ocrmypdf__poster.pdf) is written while the images are
 * listed: a third engine process of a few ms beside the list, against one more process start on
 * the job's path after it. When an image gains, the rewrite is discarded.
 */
export const REWRITE_AHEAD_MAX_BYTES = 1024 * 1024;

/** A file the pass wrote, with its page count when qpdf warned and so counted them. */
export interface Written {
  file: string;
  pages?: number;
}

export interface ImagePlan {
  candidates: ImageCandidate[];
  /** Every stream's stored bytes, when they were dumped alongside the list. */
  streams?: Map<string, StreamFile>;
  /**
   * The input's lossless rewrite, when it was written alongside the list (undefined if it failed):
   * `warned` means qpdf warned about the input and the file's pages are still to be counted.
   */
  rewrite?: Promise<{ file: string; warned: boolean } | undefined>;
}

/**
 * The pass's plan (planImagePass) from `pdfimages -list`, with a heavy or small file's streams
 * dumped by qpdf at the same time, and a small file's lossless rewrite begun; undefined when the pass
 * does not apply (both are stopped; `rewriteUntil` stops the rewrite too; `dumped`: the caller
 * dumps the streams itself, beside this). A failed dump only means
 * the candidates are dumped afterwards, a failed or stopped rewrite that it is written after the
 * pass if needed; a failed list stops both.
 */
export async function planWithStreams<O>(
  ctx: ToolContext<O>,
  input: string,
  size: { bytes: number; pages: number },
  options: { rewriteUntil?: AbortSignal; dumped?: boolean } = {},
): Promise<ImagePlan | undefined> {
  const { rewriteUntil } = options;
  const stop = new AbortController();
  const call = { ...engineCall(ctx), signal: AbortSignal.any([ctx.signal, stop.signal]) };
  const dumpAhead =
    size.bytes >= size.pages * DUMP_AHEAD_MIN_BYTES_PER_PAGE || size.bytes <= DUMP_AHEAD_ANY_MAX_BYTES;
  const dump =
    dumpAhead && !options.dumped
      ? ctx.engines.qpdf
          .rawStreams(input, [], workFile(ctx.workDir, 'stream', ''), call)
          .catch(() => undefined)
      : undefined;
  const stopRewrite = new AbortController();
  const rewrite =
    size.bytes <= REWRITE_AHEAD_MAX_BYTES
      ? losslessRewrite(
          ctx,
          input,
          AbortSignal.any([ctx.signal, stopRewrite.signal, ...(rewriteUntil ? [rewriteUntil] : [])]),
        )
      : undefined;
  let plan: ImagePlan | undefined;
  try {
    const candidates = planImagePass(await ctx.engines.poppler.images(input, call), size.bytes);
    if (!candidates) return undefined;
    const streams = await dump;
    plan = { candidates, ...(streams ? { streams } : {}), ...(rewrite ? { rewrite } : {}) };
    return plan;
  } finally {
    stop.abort();
    await dump; // a stopped dump's process is gone before anything else runs
    if (!plan) {
      stopRewrite.abort();
      await rewrite;
    }
  }
}

/**
 * The lossless optimisation of `input` into a new work file, its page count left to whoever keeps
 * it (mostly it is discarded); undefined when it failed or was stopped.
 */
function losslessRewrite<O>(ctx: ToolContext<O>, input: string, signal: AbortSignal) {
  const file = workFile(ctx.workDir, 'lossless');
  return ctx.engines.qpdf.optimizeUnverified(input, file, { ...engineCall(ctx), signal }).then(
    ({ warned }) => ({ file, warned }),
    () => undefined,
  );
}
