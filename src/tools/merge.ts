// merge: concatenates PDFs in upload order (optionally a page selection per file) with qpdf, then
// rebuilds bookmarks: each file's own (`keep`), one per file over its own (`per_file`), or none.
import { writeFile } from 'node:fs/promises';
import { type Static, Type } from '@sinclair/typebox';
import { QuireError } from '../errors/quire-error.js';
import { engineCall, engineCallWithProgress } from './lib/inputs.js';
import { type MergedFile, outlineTree, outlineUpdate, type QpdfOutline } from './lib/merge-outlines.js';
import { fileStem, workFile } from './lib/output-name.js';
import { PageSelectionSchema, resolvePageList, toQpdfRange } from './lib/page-selection.js';
import { StringEnum } from './lib/schema.js';
import type { ToolContext } from './lib/types.js';
import { defineTool } from './lib/types.js';

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

async function readOutlines(ctx: Ctx, files: MergedFile[]): Promise<void> {
  for (const [i, input] of ctx.inputs.entries()) {
    const json = (await ctx.engines.qpdf.json(input.path, ['outlines', 'pages'], engineCall(ctx))) as {
      outlines?: QpdfOutline[];
      pages?: { object: string }[];
    };
    files[i] = {
      ...files[i]!,
      outlines: json.outlines ?? [],
      pageNumbers: new Map((json.pages ?? []).map((page, k) => [page.object, k + 1])),
    };
  }
}

interface MergedJson {
  pages: { object: string }[];
  qpdf: [{ maxobjectid: number }, Record<string, { value: Record<string, unknown> }>];
}

/** Writes the rebuilt outline into `merged`, returning the new file (or `merged` if nothing to add). */
async function addOutlines(
  ctx: Ctx,
  merged: string,
  files: MergedFile[],
  mode: 'keep' | 'per_file',
): Promise<string> {
  const qpdf = ctx.engines.qpdf;
  const call = engineCall(ctx);
  const info = (await qpdf.json(merged, ['pages', 'qpdf'], call, ['trailer'])) as MergedJson;
  const pageRefs = info.pages.map((p) => p.object);
  const nodes = outlineTree(files, pageRefs, mode);
  if (nodes.length === 0) return merged;

  const rootRef = String(info.qpdf[1].trailer?.value['/Root'] ?? '');
  const rootId = /^(\d+) (\d+) R$/.exec(rootRef);
  if (!rootId) throw new QuireError('engine_failed', 'The merged file has no catalog');
  const root = (await qpdf.json(merged, ['qpdf'], call, [`${rootId[1]},${rootId[2]}`])) as MergedJson;
  const rootValue = root.qpdf[1][`obj:${rootRef}`]?.value ?? { '/Type': '/Catalog' };

  const update = workFile(ctx.workDir, 'outlines', 'json');
  await writeFile(update, JSON.stringify(outlineUpdate(nodes, info.qpdf[0].maxobjectid, rootRef, rootValue)));
  const output = workFile(ctx.workDir, 'merged-outlined');
  await qpdf.updateFromJson(merged, update, output, call);
  return output;
}

export const mergeTool = defineTool({
  name: 'merge',
  title: 'Merge PDFs',
  description: 'Combines several PDFs into one, in upload order, optionally taking selected pages of each.',
  inputs: { minFiles: 2, maxFiles: 'plan', accepts: ['application/pdf'], opens: 'pdf' },
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
    const { pages, files } = plan(ctx, ctx.pages);
    if (mode !== 'none') await readOutlines(ctx, files);

    ctx.progress.step('merge');
    const merged = workFile(ctx.workDir, 'merged');
    const parts = ctx.inputs.map((input, i) => ({ path: input.path, pages: toQpdfRange(pages[i]!) }));
    await ctx.engines.qpdf.merge(parts, merged, engineCallWithProgress(ctx));

    ctx.progress.step('bookmarks');
    // Rebuilding the outline reads and rewrites the whole merged file; skip it when there is none.
    const nothingToKeep = mode === 'keep' && files.every((f) => f.outlines.length === 0);
    const output = mode === 'none' || nothingToKeep ? merged : await addOutlines(ctx, merged, files, mode);
    return {
      path: output,
      name: `${fileStem(ctx.inputs[0]!.name)}-merged.pdf`,
      contentType: 'application/pdf',
      facts: { pages: pages.reduce((sum, list) => sum + list.length, 0), files: ctx.inputs.length },
    };
  },
});
