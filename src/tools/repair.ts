// repair: rebuilds a damaged PDF (xref table, stream lengths) with qpdf, and only when qpdf's own
// copy still fails `qpdf --check` (e.g. undecodable stream data) re-distils it with Ghostscript.
import { Type } from '@sinclair/typebox';
import { isQuireError } from '../errors/quire-error.js';
import { engineCall, engineCallWithProgress } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import type { ToolContext } from './framework/types.js';
import { defineTool } from './framework/types.js';

const options = Type.Object({}, { additionalProperties: false, examples: [{}] });

/**
 * Codes that mean "qpdf or Ghostscript found this copy unusable", as opposed to limits and
 * cancellation, which must still end the job.
 */
const UNUSABLE = new Set(['pdf_corrupt', 'engine_failed']);

async function passesCheck<O>(ctx: ToolContext<O>, file: string): Promise<boolean> {
  try {
    return (await ctx.engines.qpdf.check(file, engineCall(ctx))).clean;
  } catch (err) {
    if (isQuireError(err) && UNUSABLE.has(err.code)) return false;
    throw err;
  }
}

/**
 * Ghostscript re-creates every object from what it can interpret, so damage qpdf carries over
 * (a stream whose compressed data is broken) does not survive. It loses some structure (forms,
 * some metadata), hence only a fallback, and only when it keeps every page.
 */
async function distilled<O>(ctx: ToolContext<O>, source: string, pageCount: number) {
  const gsOut = workFile(ctx.workDir, 'distilled');
  const output = workFile(ctx.workDir, 'repaired-gs');
  try {
    await ctx.engines.ghostscript.pdfwrite(
      source,
      gsOut,
      { level: 'keep', grayscale: false },
      engineCall(ctx),
    );
    if ((await ctx.engines.qpdf.pageCount(gsOut, engineCall(ctx))) !== pageCount) return undefined;
    await ctx.engines.qpdf.rewrite(gsOut, output, engineCall(ctx));
  } catch (err) {
    if (isQuireError(err) && UNUSABLE.has(err.code)) return undefined;
    throw err;
  }
  return (await passesCheck(ctx, output)) ? output : undefined;
}

export const repairTool = defineTool({
  name: 'repair',
  title: 'Repair a damaged PDF',
  group: 'Pages and structure',
  keywords: ['fix', 'recover', 'broken', 'corrupt'],
  description:
    'Rebuilds a damaged PDF (cross-reference table, stream lengths, broken objects) into a clean file; a file beyond repair fails with pdf_corrupt.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf', 'ghostscript'],
  steps: { inspect: 15, rebuild: 55, verify: 10, fallback: 20 },
  async run(ctx) {
    // The runner's opening is qpdf's reconstruction; a file it cannot open at all is pdf_corrupt,
    // and one it could open only by repairing arrives as the runner's rewritten copy.
    const { input, pageCount } = await onlyPdf(ctx);
    const wasDamaged = input.repairedFrom !== undefined || !(await passesCheck(ctx, input.path));

    ctx.progress.step('rebuild');
    const rebuilt = workFile(ctx.workDir, 'repaired');
    await ctx.engines.qpdf.rewrite(input.path, rebuilt, engineCallWithProgress(ctx));
    ctx.progress.step('verify');
    let output = rebuilt;
    let method = 'qpdf';
    let clean = await passesCheck(ctx, rebuilt);
    if (!clean) {
      ctx.progress.step('fallback');
      const fallback = await distilled(ctx, rebuilt, pageCount);
      if (fallback) {
        output = fallback;
        method = 'ghostscript';
        clean = true;
      }
    }
    return {
      path: output,
      name: outputName(input.name, 'repaired'),
      contentType: 'application/pdf',
      // `clean: false` is qpdf's best copy that still has warnings: better than nothing, and said.
      facts: { pages: pageCount, was_damaged: wasDamaged, method, clean },
    };
  },
});
