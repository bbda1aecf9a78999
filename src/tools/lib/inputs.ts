// The opening every PDF tool needs, done once by the runner as the definition declares it: each PDF
// input opened with qpdf (typed errors for encrypted and damaged files) and the page limit enforced.
import type { EngineCallOptions } from '../../engines/call-options.js';
import { QuireError } from '../../errors/quire-error.js';
import { workFile } from './output-name.js';
import type { AnyToolDefinition, RunContext, ToolContext, ToolInput, ToolOutput } from './types.js';

/** Engine call options bound to the job: its work dir, cancel signal and per-tool limits. */
export function engineCall<O>(
  ctx: RunContext<O>,
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

/** Engine call options that report the engine's progress as the current step's fraction. */
export function engineCallWithProgress<O>(ctx: RunContext<O>): EngineCallOptions {
  return engineCall(ctx, (done, total) => ctx.progress.fraction(done, total));
}

export function checkPageLimit(pages: number, maxPages: number): void {
  if (pages > maxPages) {
    throw new QuireError('limit_pages_exceeded', `The job has ${pages} pages; the limit is ${maxPages}`, {
      extras: { pages, limit_pages: maxPages },
    });
  }
}

/**
 * Opens `input` and returns its page count. Without a password a user-password file fails
 * `pdf_encrypted`; with one, a wrong password fails `invalid_password`; an unreadable file or one
 * without pages fails `pdf_corrupt`.
 */
async function openInput<O>(ctx: RunContext<O>, input: ToolInput, password?: string): Promise<number> {
  const pages = await ctx.engines.qpdf.pageCount(input.path, {
    ...engineCall(ctx),
    ...(password === undefined ? {} : { password }),
  });
  if (pages < 1) throw new QuireError('pdf_corrupt', 'The PDF has no pages');
  return pages;
}

/**
 * Opens every PDF input in upload order, enforcing the page limit on the running total, so the
 * first file past the limit stops the job before the next is opened.
 */
async function openPdfs<O>(ctx: RunContext<O>, password: string | undefined): Promise<number[]> {
  const pdfs = ctx.inputs.filter((input) => input.contentType === 'application/pdf');
  const counts: number[] = [];
  for (const [i, input] of pdfs.entries()) {
    counts.push(await openInput(ctx, input, password));
    checkPageLimit(
      counts.reduce((a, b) => a + b, 0),
      ctx.limits.maxPages,
    );
    // Several files: each is a share of the step (merge). One file: the tool goes on inspecting it
    // within the step, so opening it alone does not advance the bar.
    if (pdfs.length > 1) ctx.progress.fraction(i + 1, pdfs.length);
  }
  return counts;
}

/** Runs `tool` as its definition declares: engine-free refusals, the opening, then the tool. */
export async function openAndRun<O>(
  tool: Pick<AnyToolDefinition, 'inputs' | 'checkJob' | 'run'>,
  ctx: RunContext<O>,
): Promise<ToolOutput> {
  tool.checkJob?.(ctx.options, ctx.inputs);
  let pages: number[] = [];
  let opened = ctx;
  if (tool.inputs.opens === 'pdf') {
    const { passwordOption } = tool.inputs;
    const options = ctx.options as Record<string, string | undefined>;
    const password = options[passwordOption ?? INPUT_PASSWORD_OPTION];
    ctx.progress.step('inspect');
    pages = await openPdfs(ctx, password);
    // A tool with its own password option (unlock) does its own decrypting.
    if (passwordOption === undefined && password !== undefined) opened = await decryptedInputs(ctx, password);
  }
  return tool.run({ ...opened, pages });
}

/**
 * The option every PDF-opening tool accepts for an encrypted input (the catalogue adds it to their
 * schemas and secret options, so no tool declares it).
 */
export const INPUT_PASSWORD_OPTION = 'password';

/**
 * Each PDF input replaced by a decrypted copy in the work dir, and the password taken out of the
 * options: the tool, and every step after it, works on a file that needs no password.
 */
async function decryptedInputs<O>(ctx: RunContext<O>, password: string): Promise<RunContext<O>> {
  const inputs: ToolInput[] = [];
  for (const input of ctx.inputs) {
    if (input.contentType !== 'application/pdf') {
      inputs.push(input);
      continue;
    }
    const copy = workFile(ctx.workDir, 'decrypted');
    await ctx.engines.qpdf.decrypt(input.path, copy, { ...engineCall(ctx), password });
    inputs.push({ ...input, path: copy });
  }
  const { [INPUT_PASSWORD_OPTION]: _password, ...options } = ctx.options as Record<string, unknown>;
  return { ...ctx, inputs, options: options as O };
}

export function onlyInput<O>(ctx: RunContext<O>): ToolInput {
  const input = ctx.inputs[0];
  if (!input) throw new QuireError('missing_file', 'The tool needs one PDF');
  return input;
}

/** The one PDF of a job (its first input) and the page count the runner found opening it. */
export function onlyPdf<O>(ctx: ToolContext<O>): { input: ToolInput; pageCount: number } {
  const input = onlyInput(ctx);
  const pageCount = ctx.pages[0];
  if (pageCount === undefined) throw new Error('the tool reads page counts but does not declare opens');
  return { input, pageCount };
}
