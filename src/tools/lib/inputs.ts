// What every PDF tool does before its real work: open each input with qpdf (typed errors for
// encrypted and damaged files), enforce the page limit, and build engine call options.
import type { EngineCallOptions } from '../../engines/call-options.js';
import { QuireError } from '../../errors/quire-error.js';
import type { ToolContext, ToolInput } from './types.js';

/** Engine call options bound to the job: its work dir, cancel signal and per-tool limits. */
export function engineCall<O>(
  ctx: ToolContext<O>,
  onProgress?: (done: number, total: number) => void,
): EngineCallOptions {
  return {
    workDir: ctx.workDir,
    signal: ctx.signal,
    timeoutMs: ctx.limits.timeoutMs,
    memoryBytes: ctx.limits.memoryBytes,
    ...(onProgress ? { onProgress } : {}),
  };
}

/**
 * Opens `input` and returns its page count. Without a password a user-password file fails
 * `pdf_encrypted`; with one, a wrong password fails `invalid_password`; an unreadable file or one
 * without pages fails `pdf_corrupt`.
 */
export async function openInput<O>(
  ctx: ToolContext<O>,
  input: ToolInput,
  password?: string,
): Promise<number> {
  const pages = await ctx.engines.qpdf.pageCount(input.path, {
    ...engineCall(ctx),
    ...(password === undefined ? {} : { password }),
  });
  if (pages < 1) throw new QuireError('pdf_corrupt', 'The PDF has no pages');
  return pages;
}

export function checkPageLimit(pages: number, maxPages: number): void {
  if (pages > maxPages) {
    throw new QuireError('limit_pages_exceeded', `The job has ${pages} pages; the limit is ${maxPages}`, {
      extras: { pages, limit_pages: maxPages },
    });
  }
}

/** Opens every input in order (progress per file) and enforces the page limit on the total. */
export async function openAll<O>(ctx: ToolContext<O>): Promise<number[]> {
  const counts: number[] = [];
  for (const [i, input] of ctx.inputs.entries()) {
    counts.push(await openInput(ctx, input));
    checkPageLimit(
      counts.reduce((a, b) => a + b, 0),
      ctx.limits.maxPages,
    );
    ctx.progress.fraction(i + 1, ctx.inputs.length);
  }
  return counts;
}

export function onlyInput<O>(ctx: ToolContext<O>): ToolInput {
  const input = ctx.inputs[0];
  if (!input) throw new QuireError('missing_file', 'The tool needs one PDF');
  return input;
}
