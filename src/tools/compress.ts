// compress: lossy image downsampling (Ghostscript) plus lossless restructuring (qpdf). The result
// is never larger than the input: the smallest candidate wins, and the input itself if none gains.
import { copyFile, stat } from 'node:fs/promises';
import { type Static, Type } from '@sinclair/typebox';
import type { LossyLevel } from '../engines/ghostscript/ghostscript.js';
import { isQuireError } from '../errors/quire-error.js';
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

async function sizeOf(file: string): Promise<number> {
  return (await stat(file)).size;
}

export const compressTool = defineTool({
  name: 'compress',
  title: 'Compress a PDF',
  description:
    'Makes a PDF smaller by downsampling images (lossy levels) and restructuring it losslessly. Never returns a larger file.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf', 'ghostscript'],
  steps: { inspect: 5, lossy: 70, lossless: 20, compare: 5 },
  async run(ctx) {
    const { input, pageCount } = onlyPdf(ctx);
    const level = ctx.options.level ?? 'medium';
    const inputSize = await sizeOf(input.path);

    const wantsLossy = level !== 'lossless' || ctx.options.grayscale === true;
    ctx.progress.step('lossy');
    const lossy = wantsLossy ? await lossyPass(ctx, input, pageCount) : undefined;

    ctx.progress.step('lossless');
    const candidates: { file: string; method: Method; size: number }[] = [];
    const optimize = async (source: string, method: Method) => {
      const file = workFile(ctx.workDir, method);
      await ctx.engines.qpdf.optimize(source, file, engineCall(ctx));
      candidates.push({ file, method, size: await sizeOf(file) });
    };
    if (lossy) await optimize(lossy, 'lossy');
    ctx.progress.fraction(1, 2);
    // The lossless rewrite of the input is the fallback whenever the lossy one did not gain.
    if (!lossy || candidates[0]!.size >= inputSize) await optimize(input.path, 'lossless');

    ctx.progress.step('compare');
    const best = candidates.sort((a, b) => a.size - b.size)[0];
    const chosen =
      best && best.size < inputSize
        ? best
        : { file: workFile(ctx.workDir, 'unchanged'), method: 'none' as const, size: inputSize };
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
      },
    };
  },
});
