// The copy of a damaged PDF input that every engine reads as qpdf does (the opening's repair,
// inputs.ts), written in as few qpdf runs as the file allows.
import type { EngineCallOptions } from '../../engines/call-options.js';
import type { Opening } from '../../engines/qpdf/qpdf.js';
import type { RunContext } from './types.js';
import { rewrittenCopyPages } from './written-pdf.js';

/**
 * Writes the repaired copy of a damaged `input` and returns its page count (undefined: an encrypted
 * file, read as uploaded). Unless the trailer's /Size or the root's /Count needs mending, a plain
 * rewrite checked in-process usually is the whole repair (one qpdf run instead of five:
 * pdfjs__scan-bad.pdf); a copy that does not hold is written again by `repairCopy`, which mends
 * both with a JSON update read from the file.
 */
export async function repairedCopy<O>(
  ctx: RunContext<O>,
  input: string,
  output: string,
  opening: Opening,
  call: EngineCallOptions,
): Promise<number | undefined> {
  if (!opening.mendsStructure) {
    await ctx.engines.qpdf.rewriteDamaged(input, output, call);
    const pages = await rewrittenCopyPages(output, opening.pages);
    if (pages !== undefined) return pages;
  }
  return ctx.engines.qpdf.repairCopy(input, output, opening.pages, call);
}
