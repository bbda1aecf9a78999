// The runner's opening of a job's PDF inputs: each opened with qpdf (typed errors for encrypted and
// damaged files, a qpdf-rewritten copy of a file qpdf had to repair) with the page limit enforced,
// or, when a tool on an early run asks for its page counts (`inputs.early`), small clean files
// counted in-process (quick-open.ts).
import { stat } from 'node:fs/promises';
import { QuireError } from '../../errors/quire-error.js';
import { engineCall } from './engine-call.js';
import { workFile } from './output-name.js';
import { quickPageCount } from './quick-open.js';
import { repairedCopy } from './repaired-copy.js';
import type { RunContext, ToolInput } from './types.js';

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
export function pdfInputs(inputs: readonly ToolInput[]): ToolInput[] {
  return inputs.filter((input) => input.contentType === 'application/pdf');
}

/** How many of `pdfs` open at once: a few when every one is small, else one at a time. */
export function opensAtOnce(pdfs: readonly ToolInput[]): number {
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
export async function openPdfs<O>(
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
export async function quickCounts<O>(ctx: RunContext<O>): Promise<number[] | undefined> {
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
