// merge: concatenates PDFs in upload order (optionally a page selection per file) with qpdf, then
// appends bookmarks: each file's own (`keep`), one per file over its own (`per_file`), or none.
import { type Static, Type } from '@sinclair/typebox';
import { type EngineCallOptions, InputNeedsOpeningError } from '../engines/call-options.js';
import { QuireError } from '../errors/quire-error.js';
import { engineCall, engineCallWithProgress } from './framework/engine-call.js';
import { openBeside } from './framework/opening-beside.js';
import { fileStem, workFile } from './framework/output-name.js';
import { PageSelectionSchema, resolvePageList, toQpdfRange } from './framework/page-selection.js';
import { StringEnum } from './framework/schema.js';
import type { ToolContext, ToolInput } from './framework/types.js';
import { defineTool } from './framework/types.js';
import { readWrittenPdf } from './framework/written-pdf.js';
import { eachOutline, type MergedFile, outlineTree, type QpdfOutline } from './lib/merge-outlines.js';
import { appendOutline } from './lib/outline-update.js';
import { pooled } from './shared/pooled.js';

const options = Type.Object(
  {
    pages_per_file: Type.Optional(
      Type.Array(PageSelectionSchema('Pages of this file, in the order given.'), {
        maxItems: 1000,
        description:
          'One page selection per input, in upload order; missing or empty entries take all pages.',
        examples: [['1-3', '', 'r1']],
      }),
    ),
    bookmarks: Type.Optional(
      StringEnum(['keep', 'per_file', 'none'], {
        default: 'keep',
        description:
          '`keep`: every file’s bookmarks; `per_file`: one bookmark per file (its name) holding that file’s bookmarks; `none`: no bookmarks.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{}, { pages_per_file: ['1-3', 'r1'], bookmarks: 'per_file' }],
  },
);

type Ctx = ToolContext<Static<typeof options>>;

interface Plan {
  pages: number[][];
  files: MergedFile[];
}

function plan(ctx: Ctx, counts: readonly number[]): Plan {
  const selections = ctx.options.pages_per_file ?? [];
  if (selections.length > ctx.inputs.length) {
    throw new QuireError('invalid_options', 'pages_per_file has more entries than there are files', {
      errors: [{ pointer: '/options/pages_per_file', detail: `at most ${ctx.inputs.length} entries` }],
    });
  }
  const pages = counts.map((count, i) => resolvePageList(selections[i], count));
  let offset = 0;
  const files = pages.map((list, i) => {
    const pageMap = new Map<number, number>();
    list.forEach((page, k) => {
      if (!pageMap.has(page)) pageMap.set(page, offset + k);
    });
    const file = {
      title: fileStem(ctx.inputs[i]!.name),
      outlines: [],
      pageMap,
      firstIndex: offset,
      pageNumbers: new Map(),
    };
    offset += list.length;
    return file;
  });
  return { pages, files };
}

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

type Mode = NonNullable<Static<typeof options>['bookmarks']>;

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

export const mergeTool = defineTool({
  name: 'merge',
  title: 'Merge PDFs',
  group: 'Pages and structure',
  keywords: ['combine', 'join', 'concatenate', 'append'],
  description: 'Combines several PDFs into one, in upload order, optionally taking selected pages of each.',
  inputs: { minFiles: 2, maxFiles: 'plan', accepts: ['application/pdf'], opens: 'pdf', early: true },
  options,
  checkRequest(opts, fileCount) {
    const given = opts.pages_per_file?.length ?? 0;
    return given > fileCount
      ? [{ pointer: '/options/pages_per_file', detail: `has ${given} entries for ${fileCount} files` }]
      : [];
  },
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { inspect: 15, merge: 75, bookmarks: 10 },
  checkJob(_options, inputs) {
    if (inputs.length < 2) throw new QuireError('missing_file', 'Merging needs at least two PDFs');
  },
  async run(ctx) {
    const mode = ctx.options.bookmarks ?? 'keep';
    const merged = workFile(ctx.workDir, 'merged');
    const { pages, files } = await (ctx.quickOpened ? mergeBeside : mergeOpened)(ctx, mode, merged);
    const total = pages.reduce((sum, list) => sum + list.length, 0);

    ctx.progress.step('bookmarks');
    // Nothing to write: no bookmarks asked for, or none in any input.
    const nothingToKeep = mode === 'keep' && files.every((f) => f.outlines.length === 0);
    if (mode !== 'none' && !nothingToKeep) {
      const layout = await readWrittenPdf(merged, total);
      const nodes = outlineTree(files, layout.pages, mode);
      if (nodes.length > 0) await appendOutline(merged, layout, nodes);
    }
    return {
      path: merged,
      name: `${fileStem(ctx.inputs[0]!.name)}-merged.pdf`,
      contentType: 'application/pdf',
      facts: { pages: total, files: ctx.inputs.length },
    };
  },
});
