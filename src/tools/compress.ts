// compress: lossy image downsampling (the image pass for image-heavy files, Ghostscript otherwise)
// plus lossless restructuring (qpdf). The result is never larger than the input: the smallest
// candidate wins, and the input itself if none gains.
import { copyFile, stat } from 'node:fs/promises';
import { type Static, Type } from '@sinclair/typebox';
import type { LossyLevel } from '../engines/ghostscript/ghostscript.js';
import { isQuireError } from '../errors/quire-error.js';
import { IMAGE_TARGETS, imagePass } from './lib/image-pass.js';
import { planWithStreams } from './lib/image-plan.js';
import { engineCall, engineCallWithProgress, onlyPdf } from './lib/inputs.js';
import { outputName, workFile } from './lib/output-name.js';
import { StringEnum } from './lib/schema.js';
import type { ToolContext, ToolInput } from './lib/types.js';
import { defineTool } from './lib/types.js';

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
 * The image pass (lib/image-pass.ts) for a lossy level without grey conversion, when the JPEGs it
 * can re-encode dominate the file. Its file is already optimised (and only optimised when no image
 * gained); it stands only if it is smaller than the input, else Ghostscript runs as for any other
 * file. Undefined when it does not apply.
 */
async function imagePassCandidate(
  ctx: ToolContext<Options>,
  input: ToolInput,
  pageCount: number,
  inputSize: number,
): Promise<Candidate | undefined> {
  const level = ctx.options.level ?? 'medium';
  if (level === 'lossless' || ctx.options.grayscale === true) return undefined;
  const target = IMAGE_TARGETS[level];
  try {
    const plan = await planWithStreams(ctx, input.path, { bytes: inputSize, pages: pageCount });
    if (!plan) return undefined;
    const pass = await imagePass(ctx, input.path, plan, target);
    const size = await sizeOf(pass.file);
    if (size >= inputSize) return undefined;
    return pass.images > 0
      ? { file: pass.file, method: 'lossy', size, engine: 'images' }
      : { file: pass.file, method: 'lossless', size };
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

export const compressTool = defineTool({
  name: 'compress',
  title: 'Compress a PDF',
  description:
    'Makes a PDF smaller by downsampling images (lossy levels) and restructuring it losslessly. Never returns a larger file.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf', 'ghostscript', 'poppler'],
  steps: { inspect: 5, lossy: 70, lossless: 20, compare: 5 },
  async run(ctx) {
    const { input, pageCount } = onlyPdf(ctx);
    const level = ctx.options.level ?? 'medium';
    const inputSize = await sizeOf(input.path);

    const wantsLossy = level !== 'lossless' || ctx.options.grayscale === true;
    ctx.progress.step('lossy');
    const fast = await imagePassCandidate(ctx, input, pageCount, inputSize);
    const candidates: Candidate[] = fast
      ? [fast]
      : await ghostscriptCandidates(ctx, input, pageCount, inputSize);

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
  },
});
