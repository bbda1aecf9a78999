// How a tool gets its inputs: the runner's `openAndRun` opens them as the definition declares
// (`inputs.opens`, and `inputs.early` for when) and hands them to `run`, which asks for them through
// `onlyPdf`/`openedPages`, or, on an early run, opens them beside its own work (opening-beside.ts).
import { InputNeedsOpeningError } from '../../engines/call-options.js';
import { QuireError } from '../../errors/quire-error.js';
import {
  decryptedInputs,
  decryptsFor,
  INPUT_PASSWORD_OPTION,
  protectionOf,
  scanProtection,
  underEncryptionRule,
} from './encryption-rule.js';
import { engineCall } from './engine-call.js';
import { openPdfs, pdfInputs, quickCounts } from './opening.js';
import type { AnyToolDefinition, RunContext, ToolContext, ToolInput, ToolOutput } from './types.js';

/**
 * Runs `tool` as its definition declares: engine-free refusals, the opening, then the tool. An
 * early tool (`inputs.early`) on unencrypted inputs without a password runs first on inputs qpdf has
 * not opened; whatever it finds doubtful (InputNeedsOpeningError) sends the job to the qpdf opening,
 * and the tool runs again on the opened inputs.
 */
export async function openAndRun<O>(
  tool: Pick<AnyToolDefinition, 'inputs' | 'checkJob' | 'run' | 'encryption'>,
  ctx: RunContext<O>,
): Promise<ToolOutput> {
  tool.checkJob?.(ctx.options, ctx.inputs);
  if (tool.inputs.opens !== 'pdf') return tool.run({ ...ctx, pages: [] });
  const { passwordOption } = tool.inputs;
  const options = ctx.options as Record<string, string | undefined>;
  // A later step of a job opens its input with the password the chain knows (steps.ts).
  const password = passwordOption
    ? options[passwordOption]
    : (ctx.inputPassword ?? options[INPUT_PASSWORD_OPTION]);
  ctx.progress.step('inspect');
  const pdfs = pdfInputs(ctx.inputs);
  const scans = await Promise.all(pdfs.map((input) => scanProtection(input.path)));
  const early =
    tool.inputs.early && password === undefined && !scans.some((scan) => scan.encrypted)
      ? await runEarly(tool, ctx)
      : undefined;
  if (early) {
    const found = pdfs.map((input, i) => ({ input, signed: scans[i]!.signed }));
    return underEncryptionRule(tool, ctx, found, early, engineCall(ctx));
  }
  const opened = await openPdfs(ctx, password);
  const call = { ...engineCall(ctx), ...(password === undefined ? {} : { password }) };
  const found = await protectionOf(pdfs, scans, ctx.engines.qpdf, call);
  let run: RunContext<O> = { ...ctx, inputs: opened.inputs };
  if (decryptsFor(tool, password)) run = await decryptedInputs(run, found, call);
  const output = await tool.run({ ...run, pages: opened.counts });
  const handed = pdfInputs(run.inputs)[0]?.path;
  return underEncryptionRule(tool, ctx, found, output, call, handed);
}

/**
 * The tool run on inputs qpdf has not opened (`quickOpened`, `pages` empty until it asks), or
 * undefined when an input needs the qpdf opening after all.
 */
async function runEarly<O>(
  tool: Pick<AnyToolDefinition, 'run'>,
  ctx: RunContext<O>,
): Promise<ToolOutput | undefined> {
  try {
    return await tool.run({ ...ctx, quickOpened: true, pages: [] });
  } catch (error) {
    if (!(error instanceof InputNeedsOpeningError)) throw error;
    return undefined;
  }
}

/**
 * The page count of each PDF input in upload order. After the runner's opening they are its counts;
 * on an early run they are counted now, in-process (quick-open.ts), and written into `ctx.pages`
 * for whoever reads the run's counts (a step of a job); an input that does not open in-process
 * sends the job to the qpdf opening (InputNeedsOpeningError).
 */
export async function openedPages<O>(ctx: ToolContext<O>): Promise<readonly number[]> {
  if (!ctx.quickOpened || ctx.pages.length > 0) return ctx.pages;
  const counts = await quickCounts(ctx);
  if (!counts) throw new InputNeedsOpeningError('an input does not open in-process');
  // The runner handed this array over for the run to fill (runEarly); the type keeps tools from it.
  (ctx.pages as number[]).push(...counts);
  return ctx.pages;
}

export { INPUT_PASSWORD_OPTION };

export function onlyInput<O>(ctx: RunContext<O>): ToolInput {
  const input = ctx.inputs[0];
  if (!input) throw new QuireError('missing_file', 'The tool needs one PDF');
  return input;
}

/** The one PDF of a job (its first input) and its page count from the opening (`openedPages`). */
export async function onlyPdf<O>(ctx: ToolContext<O>): Promise<{ input: ToolInput; pageCount: number }> {
  const input = onlyInput(ctx);
  const pageCount = (await openedPages(ctx))[0];
  if (pageCount === undefined) throw new Error('the tool reads page counts but does not declare opens');
  return { input, pageCount };
}
