// pages: keeps a selection of pages in the order given (repeats allowed) or removes a selection,
// keeping the document's catalog (metadata, bookmarks into surviving pages).
import { type Static, Type } from '@sinclair/typebox';
import { QuireError } from '../errors/quire-error.js';
import { engineCallWithProgress } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { checkPageLimit } from './framework/opening.js';
import { outputName, workFile } from './framework/output-name.js';
import {
  PageSelectionSchema,
  resolvePageList,
  resolvePageSet,
  toQpdfRange,
} from './framework/page-selection.js';
import { defineTool } from './framework/types.js';

/**
 * An explicit selection: `""` would mean "all pages", which makes `keep` a plain copy and
 * `remove` an empty document, so both require at least one character.
 */
const selection = (description: string, examples: string[]) =>
  Type.Unsafe<string>({ ...PageSelectionSchema(description), minLength: 1, examples });

const options = Type.Object(
  {
    keep: Type.Optional(
      selection('Pages to keep, in the order given; a page may appear more than once.', ['3,1-2', '1-z,1']),
    ),
    remove: Type.Optional(selection('Pages to remove.', ['2,r1', '5-z'])),
  },
  {
    additionalProperties: false,
    description: 'Exactly one of keep and remove.',
    // Exactly one, in the published schema itself, so "both" and "neither" are refused (400)
    // before the upload is stored rather than failing the job later.
    oneOf: [
      { required: ['keep'], not: { required: ['remove'] } },
      { required: ['remove'], not: { required: ['keep'] } },
    ],
    examples: [{ keep: '3,1-2' }, { remove: '2,r1' }],
  },
);

type Options = Static<typeof options>;

/** The pages of the output, in order, from the options and the document's page count. */
export function outputPages(opts: Options, pageCount: number): number[] {
  if (opts.keep !== undefined) return resolvePageList(opts.keep, pageCount);
  if (opts.remove === undefined) throw new QuireError('invalid_options', 'Give keep or remove');
  const removed = new Set(resolvePageSet(opts.remove, pageCount));
  const kept = Array.from({ length: pageCount }, (_, i) => i + 1).filter((p) => !removed.has(p));
  if (kept.length === 0) {
    throw new QuireError(
      'page_range_invalid',
      `The selection "${opts.remove}" removes every page; a PDF needs at least one`,
      { extras: { page_count: pageCount } },
    );
  }
  return kept;
}

export const pagesTool = defineTool({
  name: 'pages',
  title: 'Keep or remove pages',
  group: 'Pages and structure',
  keywords: ['delete pages', 'remove pages', 'reorder', 'organize', 'extract pages', 'duplicate'],
  description:
    'Keeps the selected pages in the order given (pages may repeat), or removes the selected pages.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf', early: true },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { inspect: 10, select: 90 },
  // Each item of `keep` is at least one page, however few the document has: "1,1,…" ×50 is 50.
  leastOutput: (opts) => ({ files: 1, pages: opts.keep === undefined ? 1 : opts.keep.split(',').length }),
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    const pages = outputPages(ctx.options, pageCount);
    // Repeats multiply the output: the limit applies to what is written too.
    checkPageLimit(pages.length, ctx.limits.maxPages);

    ctx.progress.step('select');
    const output = workFile(ctx.workDir, 'pages');
    await ctx.engines.qpdf.selectPages(input.path, toQpdfRange(pages), output, engineCallWithProgress(ctx));
    return {
      path: output,
      name: outputName(input.name, 'pages'),
      contentType: 'application/pdf',
      facts: { pages: pages.length, input_pages: pageCount },
    };
  },
});
