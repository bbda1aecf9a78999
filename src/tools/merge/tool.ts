// merge: concatenates PDFs in upload order (optionally a page selection per file) with bookmarks: each
// file's own (`keep`), one per file over its own (`per_file`), or none. In one qpdf run that writes
// them too when it can (one-run.ts); else in separate runs, the bookmarks then appended.
import { QuireError } from '../../errors/quire-error.js';
import { engineOutputFile, fileStem } from '../framework/output-name.js';
import { defineTool } from '../framework/types.js';
import { readWrittenPdf } from '../framework/written-pdf.js';
import { outlineTree } from './merge-outlines.js';
import { mergeInOneRun } from './one-run.js';
import { appendOutline } from './outline-update.js';
import { options } from './plan.js';
import { mergeInRuns } from './separate-runs.js';

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
    const merged = engineOutputFile(ctx.workDir, 'merged');
    const { pages, files, bookmarksWritten } =
      (await mergeInOneRun(ctx, mode, merged)) ?? (await mergeInRuns(ctx, mode, merged));
    const total = pages.reduce((sum, list) => sum + list.length, 0);

    ctx.progress.step('bookmarks');
    // Nothing to write: written with the merge, no bookmarks asked for, or none in any input.
    const nothingToKeep = mode === 'keep' && files.every((f) => f.outlines.length === 0);
    if (!bookmarksWritten && mode !== 'none' && !nothingToKeep) {
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
