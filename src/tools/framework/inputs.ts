// The opening every PDF tool needs, done once by the runner as the definition declares it: each PDF
// input opened with qpdf (typed errors for encrypted and damaged files, a qpdf-rewritten copy of a
// file qpdf had to repair) and the page limit enforced.
import { stat } from 'node:fs/promises';
import { type EngineCallOptions, InputNeedsOpeningError } from '../../engines/call-options.js';
import { QuireError } from '../../errors/quire-error.js';
import {
  decryptedInputs,
  decryptsFor,
  INPUT_PASSWORD_OPTION,
  protectionOf,
  scanProtection,
  underEncryptionRule,
} from './encryption-rule.js';
import { workFile } from './output-name.js';
import { quickPageCount } from './quick-open.js';
import { repairedCopy } from './repaired-copy.js';
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
    ...(ctx.quickOpened ? { quickOpened: true } : {}),
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
 * Opens `input` and returns its page count, and the input the tools should read: the upload, or
 * for a file qpdf could read only by repairing it, a qpdf-rewritten copy. Every engine then reads
 * the file as qpdf does (poppler trusts a wrong /Count, Ghostscript and `--linearize` refuse what
 * qpdf reconstructs), so each tool survives what `repair` survives, from one place.
 * Without a password a user-password file fails `pdf_encrypted`; with one, a wrong password fails
 * `invalid_password`; an unreadable file or one without pages fails `pdf_corrupt`.
 */
async function openInput<O>(
  ctx: RunContext<O>,
  input: ToolInput,
  index: number,
  password?: string,
): Promise<{ pages: number; input: ToolInput }> {
  const call = { ...engineCall(ctx), ...(password === undefined ? {} : { password }) };
  const opening = await ctx.engines.qpdf.open(input.path, call);
  if (opening.pages < 1) throw new QuireError('pdf_corrupt', 'The PDF has no pages');
  // A password means an encrypted file: its trailer and encryption are not ours to rebuild.
  if (!opening.damaged || password !== undefined) return { pages: opening.pages, input };
  const repaired = workFile(ctx.workDir, `input-${index}-repaired`);
  const pages = await repairedCopy(ctx, input.path, repaired, opening, call);
  if (pages === undefined) return { pages: opening.pages, input };
  const { size } = await stat(repaired);
  return { pages, input: { ...input, path: repaired, size, repairedFrom: input.path } };
}

/**
 * Opens at once at most this many inputs of one job: each open is a short qpdf run whose process
 * start-up dominates (≈ 14 ms each for ten merge inputs one after another), so a few in flight hide
 * it without one job taking every core.
 */
const OPEN_CONCURRENCY = 4;
/**
 * Past this size an input opens alone: qpdf's memory grows with the file's objects (≈ 0.9 GB for
 * issue 14's 110 MB file), and each open may use up to the engine memory cap, so several large
 * opens at once would multiply what one job can take.
 */
const OPEN_TOGETHER_MAX_BYTES = 16 * 1024 * 1024;

/** The PDF inputs of a job, in upload order (the ones the opening reads). */
function pdfInputs(inputs: readonly ToolInput[]): ToolInput[] {
  return inputs.filter((input) => input.contentType === 'application/pdf');
}

/** How many of `pdfs` open at once: a few when every one is small, else one at a time. */
function opensAtOnce(pdfs: readonly ToolInput[]): number {
  const small = pdfs.every((pdf) => pdf.size <= OPEN_TOGETHER_MAX_BYTES);
  return small ? Math.min(OPEN_CONCURRENCY, pdfs.length) : 1;
}

/**
 * Opens every PDF input (a few at a time when all are small) and takes their results in upload
 * order: the page limit is enforced on the running total, and the first file that fails (or passes
 * the limit) fails the job with its own error, the opens still in flight being stopped. Returns the
 * page counts and the inputs as the tools must read them (repaired copies in place of damaged
 * uploads).
 */
async function openPdfs<O>(
  ctx: RunContext<O>,
  password: string | undefined,
): Promise<{ counts: number[]; inputs: ToolInput[] }> {
  const pdfs = pdfInputs(ctx.inputs);
  const counts: number[] = [];
  let total = 0;
  const inputs = [...ctx.inputs];
  const stop = new AbortController();
  const opening = { ...ctx, signal: AbortSignal.any([ctx.signal, stop.signal]) };
  const started: Promise<{ pages: number; input: ToolInput }>[] = [];
  const launch = () => {
    const i = started.length;
    if (i >= pdfs.length) return;
    const open = openInput(opening, pdfs[i]!, i, password);
    open.catch(() => undefined); // Awaited in order below; a later file's failure waits its turn.
    started.push(open);
  };
  const atOnce = opensAtOnce(pdfs);
  for (let k = 0; k < atOnce; k++) launch();
  try {
    for (const [i, input] of pdfs.entries()) {
      const opened = await started[i]!;
      counts.push(opened.pages);
      inputs[ctx.inputs.indexOf(input)] = opened.input;
      total += opened.pages;
      checkPageLimit(total, ctx.limits.maxPages);
      launch();
      // Several files: each is a share of the step (merge). One file: the tool goes on inspecting
      // it within the step, so opening it alone does not advance the bar.
      if (pdfs.length > 1) ctx.progress.fraction(i + 1, pdfs.length);
    }
  } finally {
    stop.abort();
    await Promise.allSettled(started); // no read left running into the work dir once the job ends
  }
  return { counts, inputs };
}

/**
 * The page counts of the PDF inputs when every one of them opens in-process (quick-open.ts), with
 * the page limit enforced as the qpdf opening does; undefined sends the job to the qpdf opening.
 */
async function quickCounts<O>(ctx: RunContext<O>): Promise<number[] | undefined> {
  const counts: number[] = [];
  let total = 0;
  for (const input of pdfInputs(ctx.inputs)) {
    const pages = await quickPageCount(input.path, input.size);
    if (pages === undefined) return undefined;
    counts.push(pages);
    total += pages;
    checkPageLimit(total, ctx.limits.maxPages);
  }
  return counts;
}

/**
 * Reads at once while the tool's own engine run goes on. Measured on 2 cores (merge, engine tier,
 * interleaved, load 7–9): two readers against one took the 10 corpus inputs from 1.36–1.47× raw
 * qpdf to 1.19–1.21× (`keep`) and the two small ones from 2.58–4.88× to 2.18–2.60×; with one, the
 * reads became the longer path.
 */
const OPEN_BESIDE_CONCURRENCY = 2;

/**
 * The opening of a tool that opens beside its own engine run `beside` (`inputs.opensBeside`): `read`
 * is one qpdf run per PDF input, made with `call` (`quickOpened`: a run that fails or repairs the
 * file gives up), returning what the tool wants of it and its page count. OPEN_BESIDE_CONCURRENCY
 * inputs are read at a time while `beside` runs; once it is done, the rest open as in the runner's
 * opening (OPEN_CONCURRENCY at a time when all are small). The page limit is enforced on the pages
 * read so far, as the qpdf opening does. Whatever the opening would decide otherwise — a run that
 * gives up, any error, a file without pages, a total past the limit — stops the reads, calls
 * `onGiveUp` (the tool stops `beside`) and rejects with InputNeedsOpeningError, so the runner opens
 * the inputs with qpdf and the job ends exactly as it would have without the shortcut.
 */
export async function openBeside<O, T>(
  ctx: ToolContext<O>,
  beside: Promise<unknown>,
  read: (input: ToolInput, call: EngineCallOptions) => Promise<{ value: T; pages: number }>,
  onGiveUp: () => void,
): Promise<{ values: T[]; pages: number[] }> {
  const pdfs = pdfInputs(ctx.inputs);
  const values: T[] = [];
  const counts: number[] = [];
  const stop = new AbortController();
  const call = { ...engineCall(ctx), signal: AbortSignal.any([ctx.signal, stop.signal]) };
  let next = 0;
  let total = 0;
  const reader = async () => {
    for (let i = next++; i < pdfs.length && !stop.signal.aborted; i = next++) {
      const { value, pages } = await read(pdfs[i]!, call);
      total += pages;
      if (pages < 1 || total > ctx.limits.maxPages) throw new InputNeedsOpeningError('pages to check');
      values[i] = value;
      counts[i] = pages;
    }
  };
  const besideDone = beside.then(
    () => undefined,
    () => undefined,
  );
  const during = Math.min(OPEN_BESIDE_CONCURRENCY, pdfs.length);
  const after = Math.max(0, opensAtOnce(pdfs) - during);
  const readers = [
    ...Array.from({ length: during }, reader),
    ...Array.from({ length: after }, () => besideDone.then(reader)),
  ];
  try {
    await Promise.all(readers);
  } catch (error) {
    stop.abort();
    onGiveUp();
    await Promise.allSettled(readers); // no read left running into the work dir
    ctx.signal.throwIfAborted();
    if (error instanceof InputNeedsOpeningError) throw error;
    throw new InputNeedsOpeningError('an input needs the qpdf opening', { cause: error });
  }
  return { values, pages: counts };
}

/** Runs `tool` as its definition declares: engine-free refusals, the opening, then the tool. */
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
  const quick =
    password === undefined && !scans.some((scan) => scan.encrypted)
      ? await runOpenedQuickly(tool, ctx)
      : undefined;
  if (quick) {
    const found = pdfs.map((input, i) => ({ input, signed: scans[i]!.signed }));
    return underEncryptionRule(tool, ctx, found, quick, engineCall(ctx));
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
 * The tool run on inputs the runner did not open with qpdf (`inputs.opensBeside`, `inputs.quickOpen`),
 * or undefined when an input needs the qpdf opening after all.
 */
async function runOpenedQuickly<O>(
  tool: Pick<AnyToolDefinition, 'inputs' | 'run'>,
  ctx: RunContext<O>,
): Promise<ToolOutput | undefined> {
  try {
    if (tool.inputs.opensBeside)
      return await tool.run({ ...ctx, quickOpened: true, pages: [], opensBeside: true });
    if (!tool.inputs.quickOpen) return undefined;
    const pages = await quickCounts(ctx);
    return pages ? await tool.run({ ...ctx, quickOpened: true, pages }) : undefined;
  } catch (error) {
    if (!(error instanceof InputNeedsOpeningError)) throw error;
    return undefined;
  }
}

export { INPUT_PASSWORD_OPTION };

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
