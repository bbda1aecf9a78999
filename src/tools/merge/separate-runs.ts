// The merge in separate qpdf runs, where the one-run merge (one-run.ts) is not there (no qpdf
// forkserver): qpdf's own `--pages` merge, with each input's outline (or, for `none`, its page
// count) read by a qpdf run of its own beside it.
import { type EngineCallOptions, InputNeedsOpeningError } from '../../engines/call-options.js';
import { engineCall, engineCallWithProgress } from '../framework/engine-call.js';
import { openBeside } from '../framework/opening-beside.js';
import { toQpdfRange } from '../framework/page-selection.js';
import type { ToolInput } from '../framework/types.js';
import { pooled } from '../shared/pooled.js';
import { eachOutline, type MergedFile, type QpdfOutline } from './merge-outlines.js';
import { type Ctx, type Mode, type Plan, plan } from './plan.js';

/** A bookmark whose page qpdf did not resolve (a named destination) but whose /D names a page. */
function hasNamedDest(outlines: readonly QpdfOutline[]): boolean {
  let named = false;
  eachOutline(outlines, (o) => {
    named ||= o.destpageposfrom1 === null && o.dest !== null;
  });
  return named;
}

/**
 * Up to this many pages, an input's page list is read with its outline in one qpdf run: it costs
 * qpdf less than starting a second run would (measured: +3–5 ms on 4–117 pages, a run ≥ 6 ms).
 */
const PAGES_WITH_OUTLINE = 200;

/** Outline reads at once, beside the merge's own qpdf (the merge is one process on one core). */
const OUTLINE_READERS = 2;

type OutlineJson = { outlines?: QpdfOutline[]; pages?: { object: string }[] };
type OutlineRead = Pick<MergedFile, 'outlines' | 'pageNumbers'>;

function outlineOf(json: OutlineJson): OutlineRead {
  const pages = json.pages ?? [];
  return {
    outlines: json.outlines ?? [],
    pageNumbers: new Map(pages.map((page, k) => [page.object, k + 1])),
  };
}

async function readOutline(ctx: Ctx, i: number): Promise<OutlineRead> {
  const { path } = ctx.inputs[i]!;
  const call = engineCall(ctx);
  const withPages = (ctx.pages[i] ?? 0) <= PAGES_WITH_OUTLINE;
  const json = (await ctx.engines.qpdf.json(
    path,
    withPages ? ['outlines', 'pages'] : ['outlines'],
    call,
  )) as OutlineJson;
  if (!withPages && hasNamedDest(json.outlines ?? [])) {
    json.pages = ((await ctx.engines.qpdf.json(path, ['pages'], call)) as OutlineJson).pages;
  }
  return outlineOf(json);
}

/**
 * Each input's outline, read while qpdf merges. The page list, needed only to resolve named
 * destinations, comes with the outline for small files and in a second run only when needed.
 */
async function readOutlines(ctx: Ctx, files: MergedFile[]): Promise<void> {
  await pooled(files, OUTLINE_READERS, async (file, i) => {
    files[i] = { ...file, ...(await readOutline(ctx, i)) };
  });
}

/** The merge after the runner's opening: page selections resolved, outlines read beside qpdf. */
async function mergeOpened(ctx: Ctx, mode: Mode, merged: string): Promise<Plan> {
  const { pages, files } = plan(ctx, ctx.pages);
  ctx.progress.step('merge');
  const parts = ctx.inputs.map((input, i) => ({ path: input.path, pages: toQpdfRange(pages[i]!) }));
  await allSettled([
    ctx.engines.qpdf.merge(parts, merged, engineCallWithProgress(ctx)),
    mode === 'none' ? Promise.resolve() : readOutlines(ctx, files),
  ]);
  return { pages, files };
}

/**
 * The merge started at once, every page of every file (`inputs.early`): each input is opened
 * beside qpdf's merge by one qpdf run that also brings what the bookmarks need (its outline and page
 * list), or only counts its pages for `none`. Page selections are resolved against the counts
 * (`z`, `r1`, a page past the end), so a job with one waits for the runner's opening. Whatever the
 * opening would look at more closely stops the merge and sends the job back to it (openBeside).
 */
async function mergeBeside(ctx: Ctx, mode: Mode, merged: string): Promise<Plan> {
  const selections = ctx.options.pages_per_file ?? [];
  if (selections.some((text) => text !== undefined && text !== '')) {
    throw new InputNeedsOpeningError('page selections are resolved against opened page counts');
  }
  ctx.progress.step('merge');
  const stop = new AbortController();
  const call = { ...engineCallWithProgress(ctx), signal: AbortSignal.any([ctx.signal, stop.signal]) };
  const merging = ctx.engines.qpdf.merge(
    ctx.inputs.map((input) => ({ path: input.path })),
    merged,
    call,
  );
  merging.catch(() => undefined); // awaited below, once the opening has had its say
  const read = async (input: ToolInput, readCall: EngineCallOptions) => {
    if (mode === 'none') {
      const pages = await ctx.engines.qpdf.pageCount(input.path, readCall);
      return { value: undefined, pages };
    }
    const json = (await ctx.engines.qpdf.json(input.path, ['outlines', 'pages'], readCall)) as OutlineJson;
    const value = outlineOf(json);
    return { value, pages: json.pages?.length ?? 0 };
  };
  let opened: { values: (OutlineRead | undefined)[]; pages: number[] };
  try {
    opened = await openBeside(ctx, merging, read, { onGiveUp: () => stop.abort() });
  } catch (error) {
    await merging.catch(() => undefined); // no qpdf left writing into the work dir
    throw error;
  }
  await merging;
  const { pages, files } = plan(ctx, opened.pages);
  opened.values.forEach((read, i) => {
    if (read) files[i] = { ...files[i]!, ...read };
  });
  return { pages, files };
}

/** Runs every task to its end (no engine left writing into the work dir), then throws the first failure. */
async function allSettled(tasks: readonly Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(tasks)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The merge in separate runs: on the inputs as the runner left them (opened, or not: `inputs.early`). */
export function mergeInRuns(ctx: Ctx, mode: Mode, merged: string): Promise<Plan> {
  return (ctx.quickOpened ? mergeBeside : mergeOpened)(ctx, mode, merged);
}
