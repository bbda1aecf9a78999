// The merge as one qpdf process (engines/qpdf/merge-one.ts), whatever the bookmarks: it opens each
// input once, writes the merged pages with their bookmarks and hands back each input's page count,
// so no input is read again by a run of its own and the output is not read again either. Without
// the qpdf forkserver it is not there, and the tool merges in separate runs (separate-runs.ts).
import { InputNeedsOpeningError } from '../../engines/call-options.js';
import { QuireError } from '../../errors/quire-error.js';
import { engineCallWithProgress } from '../framework/engine-call.js';
import { judgeEarlyPages } from '../framework/opening-beside.js';
import { fileStem } from '../framework/output-name.js';
import { toQpdfRange } from '../framework/page-selection.js';
import { type Ctx, type Mode, type Plan, plan } from './plan.js';

/** Each input's bookmark title with `per_file` (the plan's file titles); none is sent otherwise. */
function titleOf(ctx: Ctx, mode: Mode, i: number): { title?: string } {
  return mode === 'per_file' ? { title: fileStem(ctx.inputs[i]!.name) } : {};
}

/**
 * On inputs the runner did not open (`inputs.early`, all pages of every file): the merge is also the
 * opening. An input the opening would look at more closely (an error, a repaired file: the run
 * throws InputNeedsOpeningError), one without pages or a total past the page limit (the
 * framework's judgeEarlyPages, as in openBeside) sends the job back to the runner's opening.
 */
async function mergeUnopened(ctx: Ctx, mode: Mode, merged: string): Promise<Plan> {
  const selections = ctx.options.pages_per_file ?? [];
  if (selections.some((text) => text !== undefined && text !== '')) {
    throw new InputNeedsOpeningError('page selections are resolved against opened page counts');
  }
  const parts = ctx.inputs.map((input, i) => ({ path: input.path, ...titleOf(ctx, mode, i) }));
  const read = await ctx.engines.qpdf.mergeOnce(
    parts,
    merged,
    { bookmarks: mode },
    engineCallWithProgress(ctx),
  );
  const counts = read.map((input) => input.pages);
  let total = 0;
  for (const pages of counts) {
    total += pages;
    judgeEarlyPages(pages, total, ctx.limits.maxPages);
  }
  return { ...plan(ctx, counts), bookmarksWritten: true };
}

/** On inputs the runner opened: page selections resolved against its counts. */
async function mergeOpened(ctx: Ctx, mode: Mode, merged: string): Promise<Plan> {
  const at = plan(ctx, ctx.pages);
  const parts = ctx.inputs.map((input, i) => ({
    path: input.path,
    pages: toQpdfRange(at.pages[i]!),
    ...titleOf(ctx, mode, i),
  }));
  await ctx.engines.qpdf.mergeOnce(parts, merged, { bookmarks: mode }, engineCallWithProgress(ctx));
  return { ...at, bookmarksWritten: true };
}

/**
 * The merge in one run, bookmarks written, or undefined when this server has no qpdf forkserver or
 * it cannot start (the one-run merge lives in it): the caller then merges in separate runs.
 */
export async function mergeInOneRun(ctx: Ctx, mode: Mode, merged: string): Promise<Plan | undefined> {
  if (!ctx.engines.qpdf.mergesOnce) return undefined;
  ctx.progress.step('merge');
  try {
    return await (ctx.quickOpened ? mergeUnopened : mergeOpened)(ctx, mode, merged);
  } catch (error) {
    if (error instanceof QuireError && error.code === 'engine_unavailable') return undefined;
    throw error;
  }
}
