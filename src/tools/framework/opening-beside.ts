// The opening of an early run (`inputs.early`) done beside the tool's own engine run: one qpdf run
// per PDF input that also reads what the tool wants of it, with every verdict the runner's opening
// would give (pages, page limit, damage) taken here, so no tool decides on an opening itself.
import { type EngineCallOptions, InputNeedsOpeningError } from '../../engines/call-options.js';
import type { Opening } from '../../engines/qpdf/qpdf.js';
import { engineCall } from './engine-call.js';
import { opensAtOnce, pdfInputs } from './opening.js';
import type { ToolContext, ToolInput } from './types.js';

/**
 * Reads at once while the tool's own engine run goes on. Measured on 2 cores (merge, engine tier,
 * interleaved, load 7–9): two readers against one took the 10 corpus inputs from 1.36–1.47× raw
 * qpdf to 1.19–1.21× (`keep`) and the two small ones from 2.58–4.88× to 2.18–2.60×; with one, the
 * reads became the longer path.
 */
const OPEN_BESIDE_CONCURRENCY = 2;

/** What one read of an input found: the tool's value, the pages, and qpdf's opening verdict if it gave one. */
export interface BesideRead<T> {
  value: T;
  pages: number;
  /** The verdict of a qpdf opening run (`qpdf.open*`); a read without one gives up on any damage itself. */
  opening?: Pick<Opening, 'damaged' | 'mendsStructure'>;
}

export interface BesideOptions {
  /** Stops the tool's run beside: called once the opening gives up, before it rejects. */
  onGiveUp: () => void;
  /**
   * The tool reads a damaged input as it is when qpdf's plain write repairs it (no structure to
   * mend: compress, whose own qpdf write is that repair). The reads then repair as they read
   * (`quickOpened` off), and `onDamaged` tells the tool at once, so it can stop work that only
   * pays on a clean file. Without it, a damaged input gives up like any other doubt.
   */
  keepsDamaged?: { onDamaged: () => void };
}

/**
 * The opening's page verdict on an input an early run counted itself, `total` being the pages of
 * every input counted so far, this one included: a file without pages or a total past the plan's
 * limit sends the job back to the qpdf opening, which fails it with the typed error.
 */
export function judgeEarlyPages(pages: number, total: number, maxPages: number): void {
  if (pages < 1 || total > maxPages) throw new InputNeedsOpeningError('pages to check');
}

/**
 * Opens the PDF inputs beside the tool's engine run `beside`: `read` is one qpdf run per PDF input,
 * made with `call` (`quickOpened` unless the tool keeps damaged inputs: a run that fails or repairs
 * the file gives up), returning what the tool wants of it and its page count. OPEN_BESIDE_CONCURRENCY
 * inputs are read at a time while `beside` runs; once it is done, the rest open as in the runner's
 * opening (a few at a time when all are small). The page limit is enforced on the pages read so far,
 * as the qpdf opening does. Whatever the opening would decide otherwise — a run that gives up, any
 * error, a structure to mend, damage the tool does not keep, a file without pages, a total past the
 * limit — stops the reads, calls `onGiveUp` and rejects with InputNeedsOpeningError, so the runner
 * opens the inputs with qpdf and the job ends exactly as it would have without the shortcut.
 */
export async function openBeside<O, T>(
  ctx: ToolContext<O>,
  beside: Promise<unknown>,
  read: (input: ToolInput, call: EngineCallOptions) => Promise<BesideRead<T>>,
  options: BesideOptions,
): Promise<{ values: T[]; pages: number[]; damaged: boolean }> {
  const pdfs = pdfInputs(ctx.inputs);
  const values: T[] = [];
  const counts: number[] = [];
  const stop = new AbortController();
  const reads = options.keepsDamaged ? { ...ctx, quickOpened: false } : ctx;
  const call = { ...engineCall(reads), signal: AbortSignal.any([ctx.signal, stop.signal]) };
  let next = 0;
  let total = 0;
  let damaged = false;
  const reader = async () => {
    for (let i = next++; i < pdfs.length && !stop.signal.aborted; i = next++) {
      const { value, pages, opening } = await read(pdfs[i]!, call);
      if (opening?.mendsStructure) throw new InputNeedsOpeningError('the input needs mending');
      if (opening?.damaged) {
        if (!options.keepsDamaged) throw new InputNeedsOpeningError('the input needs the repaired copy');
        damaged = true;
        options.keepsDamaged.onDamaged();
      }
      total += pages;
      judgeEarlyPages(pages, total, ctx.limits.maxPages);
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
    options.onGiveUp();
    await Promise.allSettled(readers); // no read left running into the work dir
    ctx.signal.throwIfAborted();
    if (error instanceof InputNeedsOpeningError) throw error;
    throw new InputNeedsOpeningError('an input needs the qpdf opening', { cause: error });
  }
  return { values, pages: counts, damaged };
}
