// compress: lossy image downsampling (the image pass for image-heavy files, Ghostscript otherwise)
// plus lossless restructuring (qpdf). The result is never larger than the input: the smallest
// candidate wins, and the input itself if none gains.
import { copyFile, stat } from 'node:fs/promises';
import { type Static, Type } from '@sinclair/typebox';
import { type EngineCallOptions, InputNeedsOpeningError } from '../../engines/call-options.js';
import type { LossyLevel } from '../../engines/ghostscript/ghostscript.js';
import type { StreamFile } from '../../engines/qpdf/qpdf.js';
import { isQuireError } from '../../errors/quire-error.js';
import { AbortedError } from '../../process/runner.js';
import { engineCall, engineCallWithProgress } from '../framework/engine-call.js';
import { onlyInput, onlyPdf } from '../framework/inputs.js';
import { openBeside } from '../framework/opening-beside.js';
import { outputName, workFile } from '../framework/output-name.js';
import { StringEnum } from '../framework/schema.js';
import type { ToolContext, ToolInput, ToolOutput } from '../framework/types.js';
import { defineTool } from '../framework/types.js';
import { IMAGE_TARGETS, imagePass } from './image-pass.js';
import { type ImagePlan, planWithStreams, REWRITE_AHEAD_MAX_BYTES } from './image-plan.js';

const options = Type.Object(
  {
    level: Type.Optional(
      StringEnum(['lossless', 'low', 'medium', 'high'], {
        default: 'medium',
        description:
          '`lossless`: restructure only. `low`: images above 250 dpi to 200 dpi; `medium`: above 200 to 144; `high`: above 100 to 72 with stronger JPEG. Every level also does the lossless part.',
      }),
    ),
    grayscale: Type.Optional(Type.Boolean({ default: false, description: 'Convert colours to grey.' })),
  },
  { additionalProperties: false, examples: [{}, { level: 'high', grayscale: true }] },
);

type Options = Static<typeof options>;
type Method = 'lossy' | 'lossless' | 'none';
interface Candidate {
  file: string;
  method: Method;
  size: number;
  /** Which lossy pass made it: the image pass or Ghostscript. */
  engine?: 'images' | 'ghostscript';
}

/**
 * Ghostscript failing on a file qpdf could open (an unusual construct, a blank output) costs only
 * the lossy gain: fall back to the lossless path. Limits and cancels still end the job.
 */
const LOSSY_FALLBACK_CODES = new Set(['pdf_corrupt', 'engine_failed']);

async function lossyPass(
  ctx: ToolContext<Options>,
  input: ToolInput,
  pageCount: number,
): Promise<string | undefined> {
  const level = ctx.options.level ?? 'medium';
  const gsLevel: LossyLevel = level === 'lossless' ? 'keep' : level;
  const output = workFile(ctx.workDir, 'lossy');
  try {
    await ctx.engines.ghostscript.pdfwrite(
      input.path,
      output,
      { level: gsLevel, grayscale: ctx.options.grayscale ?? false },
      engineCallWithProgress(ctx),
    );
    // gs can exit 0 with a blank or short file (tools.md): trust only a full page count.
    const pages = await ctx.engines.qpdf.pageCount(output, engineCall(ctx));
    return pages === pageCount ? output : undefined;
  } catch (err) {
    if (isQuireError(err) && LOSSY_FALLBACK_CODES.has(err.code)) return undefined;
    throw err;
  }
}

/**
 * The image pass (image-pass.ts) for a lossy level without grey conversion, when the JPEGs it
 * can re-encode dominate the file. Its file is already optimised (and only optimised when no image
 * gained); it stands only if it is smaller than the input, else Ghostscript runs as for any other
 * file. Undefined when it does not apply.
 */
async function imagePassCandidate(
  ctx: ToolContext<Options>,
  input: ToolInput,
  inputSize: number,
  planning: () => Promise<ImagePlan | undefined>,
): Promise<(Candidate & { pages?: number }) | undefined> {
  const level = ctx.options.level ?? 'medium';
  if (level === 'lossless' || ctx.options.grayscale === true) return undefined;
  const target = IMAGE_TARGETS[level];
  try {
    const plan = await planning();
    if (!plan) return undefined;
    const pass = await imagePass(ctx, input.path, plan, target);
    const size = await sizeOf(pass.file);
    if (size >= inputSize) return undefined;
    const counted = pass.pages === undefined ? {} : { pages: pass.pages };
    return pass.images > 0
      ? { file: pass.file, method: 'lossy', size, engine: 'images', ...counted }
      : { file: pass.file, method: 'lossless', size, ...counted };
  } catch (err) {
    if (isQuireError(err) && LOSSY_FALLBACK_CODES.has(err.code)) return undefined;
    throw err;
  }
}

async function sizeOf(file: string): Promise<number> {
  return (await stat(file)).size;
}

/** The Ghostscript path: its lossy rewrite optimised, and the optimised input when that did not gain. */
async function ghostscriptCandidates(
  ctx: ToolContext<Options>,
  input: ToolInput,
  pageCount: number,
  inputSize: number,
): Promise<Candidate[]> {
  const level = ctx.options.level ?? 'medium';
  const wantsLossy = level !== 'lossless' || ctx.options.grayscale === true;
  const lossy = wantsLossy ? await lossyPass(ctx, input, pageCount) : undefined;

  ctx.progress.step('lossless');
  const candidates: Candidate[] = [];
  const optimize = async (source: string, method: Method) => {
    const file = workFile(ctx.workDir, method);
    await ctx.engines.qpdf.optimize(source, file, engineCall(ctx));
    candidates.push({
      file,
      method,
      size: await sizeOf(file),
      ...(method === 'lossy' ? { engine: 'ghostscript' } : {}),
    });
  };
  if (lossy) await optimize(lossy, 'lossy');
  ctx.progress.fraction(1, 2);
  // The lossless rewrite of the input is the fallback whenever the lossy one did not gain.
  if (!lossy || candidates[0]!.size >= inputSize) await optimize(input.path, 'lossless');
  return candidates;
}

/**
 * Up to this size compress opens its input beside the image pass (`inputs.early`): qpdf's
 * opening run also dumps every stream, while `pdfimages -list` runs and the lossless rewrite is
 * written, so the job's engine runs come in one round instead of three (ocrmypdf__poster.pdf). A
 * larger file is opened first: whether its dump is worth starting early depends on its bytes per page.
 */
const OPEN_BESIDE_MAX_BYTES = REWRITE_AHEAD_MAX_BYTES;

/**
 * compress with the opening beside the image pass. A damaged upload that a plain rewrite repairs
 * (pdfjs__scan-bad.pdf) is read as it is: poppler and qpdf both rebuild its xref by scanning its
 * objects, qpdf's write repairs it as the runner's copy would, and the output must hold every page
 * qpdf walked. Anything else the runner's opening decides (a larger file, grey or lossless, an input
 * to mend, a failed open, the page limit, a damaged file the pass does not take, whose Ghostscript
 * path needs the repaired copy) goes back to it: InputNeedsOpeningError, and the tool runs again.
 */
async function compressBeside(ctx: ToolContext<Options>): Promise<ToolOutput> {
  const upload = onlyInput(ctx);
  const input = { ...upload, size: await sizeOf(upload.path) };
  const level = ctx.options.level ?? 'medium';
  if (level === 'lossless' || ctx.options.grayscale === true || input.size > OPEN_BESIDE_MAX_BYTES) {
    throw new InputNeedsOpeningError('compress opens beside only the image pass of a small file');
  }
  // Its runs read a damaged upload as it is: the opening beside keeps damage a plain write repairs.
  const run: ToolContext<Options> = { ...ctx, quickOpened: false };
  const stop = new AbortController();
  const during = { ...run, signal: AbortSignal.any([ctx.signal, stop.signal]) };
  ctx.progress.step('lossy');
  // A damaged input's rewrite ahead is counted again (qpdf warns): two engine runs beside the pass
  // for a file mostly re-encoded (scan-bad), so it stops once the opening finds the damage.
  const damage = new AbortController();
  // The opening's run dumps every stream as well (one run fewer beside the list).
  const planning = planWithStreams(
    during,
    input.path,
    { bytes: input.size, pages: 1 },
    { rewriteUntil: damage.signal, dumped: true },
  );
  const settled = planning.then(
    (plan) => plan?.rewrite,
    () => undefined,
  );
  const read = async (pdf: ToolInput, call: EngineCallOptions) => {
    const prefix = workFile(ctx.workDir, 'stream', '');
    const { opening, streams } = await ctx.engines.qpdf.openWithStreams(pdf.path, prefix, call);
    return { value: streams, pages: opening.pages, opening };
  };
  let opened: { values: Map<string, StreamFile>[]; pages: number[]; damaged: boolean };
  try {
    opened = await openBeside(run, planning, read, {
      onGiveUp: () => stop.abort(),
      keepsDamaged: { onDamaged: () => damage.abort() },
    });
  } catch (error) {
    await settled; // no engine left writing into the work dir
    throwIfCanceled(ctx);
    throw error;
  }
  const { damaged } = opened;
  const pageCount = opened.pages[0]!;
  const streams = opened.values[0]!;
  const withStreams = () => planning.then((plan) => plan && { ...plan, streams });
  const fast = await imagePassCandidate(run, input, input.size, withStreams).catch((error) => {
    throwIfCanceled(ctx);
    // What failed on the damaged upload read as it is may still succeed on the runner's copy.
    throw damaged
      ? new InputNeedsOpeningError('the pass failed on a damaged input', { cause: error })
      : error;
  });
  if (!damaged) {
    const candidates = fast ? [fast] : await ghostscriptCandidates(run, input, pageCount, input.size);
    return { ...(await compressed(run, input, candidates)), inputPages: opened.pages };
  }
  // A damaged upload read as it is: its output must hold every page qpdf walked.
  const pages = fast && (fast.pages ?? (await ctx.engines.qpdf.pageCount(fast.file, engineCall(run))));
  if (!fast || pages !== pageCount) {
    throw new InputNeedsOpeningError('the damaged input needs the repaired copy');
  }
  return { ...(await compressed(run, input, [fast])), inputPages: opened.pages };
}

/** A canceled job ends as any engine run it stops does: AbortedError, never a job failure. */
function throwIfCanceled(ctx: ToolContext<Options>): void {
  if (ctx.signal.aborted) throw new AbortedError(ctx.signal.reason);
}

/** The smallest candidate as the job's output, or the input itself when none is smaller. */
async function compressed(
  ctx: ToolContext<Options>,
  input: ToolInput,
  candidates: Candidate[],
): Promise<ToolOutput> {
  const level = ctx.options.level ?? 'medium';
  const inputSize = input.size;
  const wantsLossy = level !== 'lossless' || ctx.options.grayscale === true;
  ctx.progress.step('compare');
  const best = candidates.sort((a, b) => a.size - b.size)[0];
  const chosen: Candidate =
    best && best.size < inputSize
      ? best
      : { file: workFile(ctx.workDir, 'unchanged'), method: 'none', size: inputSize };
  if (chosen.method === 'none') await copyFile(input.path, chosen.file);

  return {
    path: chosen.file,
    name: outputName(input.name, 'compressed'),
    contentType: 'application/pdf',
    facts: {
      input_size: inputSize,
      output_size: chosen.size,
      ratio: Math.round((chosen.size / inputSize) * 10_000) / 10_000,
      method: chosen.method,
      reduced: chosen.method !== 'none',
      ...(wantsLossy ? { lossy_applied: chosen.method === 'lossy' } : {}),
      ...(chosen.engine ? { lossy_engine: chosen.engine } : {}),
    },
  };
}

export const compressTool = defineTool({
  name: 'compress',
  title: 'Compress a PDF',
  group: 'Pages and structure',
  keywords: ['shrink', 'reduce size', 'optimize', 'smaller'],
  description:
    'Makes a PDF smaller by downsampling images (lossy levels) and restructuring it losslessly. Never returns a larger file.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf', early: true },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf', 'ghostscript', 'poppler'],
  steps: { inspect: 5, lossy: 70, lossless: 20, compare: 5 },
  async run(ctx) {
    if (ctx.quickOpened) return compressBeside(ctx);
    const { input, pageCount } = await onlyPdf(ctx);
    // The runner's copy of a repaired input is what the tools read.
    const opened = { ...input, size: await sizeOf(input.path) };
    ctx.progress.step('lossy');
    const fast = await imagePassCandidate(ctx, opened, opened.size, () =>
      planWithStreams(ctx, opened.path, { bytes: opened.size, pages: pageCount }),
    );
    const candidates = fast ? [fast] : await ghostscriptCandidates(ctx, opened, pageCount, opened.size);
    // A repaired copy can be larger than the upload, and the output is never larger than what was
    // sent: then the upload is the file to beat, and the one returned if nothing beats it.
    const upload = input.repairedFrom && {
      ...input,
      path: input.repairedFrom,
      size: await sizeOf(input.repairedFrom),
    };
    return compressed(ctx, upload && upload.size < opened.size ? upload : opened, candidates);
  },
});
