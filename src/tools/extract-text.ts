// extract-text: the text of selected pages with pdftotext, as plain UTF-8 (pages separated by form
// feeds, as pdftotext writes them) or as JSON with one entry per page.

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { type Static, Type } from '@sinclair/typebox';
import { engineCall } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { PageSelectionSchema, pageRuns, resolvePageList } from './framework/page-selection.js';
import { StringEnum } from './framework/schema.js';
import { defineTool } from './framework/types.js';

const options = Type.Object(
  {
    format: Type.Optional(
      StringEnum(['text', 'json'], {
        default: 'text',
        description:
          '`text`: UTF-8 text, each page ended by a form feed (U+000C); `json`: {"pages": [{"page": n, "text": "…"}]}.',
      }),
    ),
    layout: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Keep the physical layout (columns side by side, padded with spaces) instead of reading order.',
      }),
    ),
    pages: Type.Optional(
      PageSelectionSchema('Pages to extract, in the order given; empty or omitted = all pages.'),
    ),
  },
  { additionalProperties: false, examples: [{}, { format: 'json', layout: true, pages: '1-2' }] },
);

type Options = Static<typeof options>;

/**
 * Pages per pdftotext run: one run per page would re-open the document thousands of times; one
 * run for everything would hold a whole book's text in memory and report no progress.
 */
const PAGES_PER_RUN = 25;

/** pdftotext ends every page with a form feed, so a run of n pages splits into n texts. */
function splitPages(text: string, count: number): string[] {
  const parts = text.split('\f').slice(0, count);
  while (parts.length < count) parts.push('');
  return parts;
}

export const extractTextTool = defineTool({
  name: 'extract-text',
  title: 'Extract text',
  group: 'Content and images',
  keywords: ['text', 'copy text', 'txt'],
  description: 'Extracts the text of the selected pages as UTF-8 text or as JSON with one entry per page.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'text/plain; charset=utf-8' },
  engines: ['qpdf', 'poppler'],
  steps: { inspect: 10, extract: 90 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    const opts: Options = ctx.options;
    const pages = resolvePageList(opts.pages, pageCount);

    ctx.progress.step('extract');
    const json = opts.format === 'json';
    const output = workFile(ctx.workDir, 'text', json ? 'json' : 'txt');
    const out = createWriteStream(output, { mode: 0o600 });
    const write = async (chunk: string) => {
      if (!out.write(chunk)) await once(out, 'drain');
    };
    let done = 0;
    let characters = 0;
    try {
      if (json) await write('{"pages":[');
      for (const run of pageRuns(pages, PAGES_PER_RUN)) {
        const text = await ctx.engines.poppler.text(
          input.path,
          { firstPage: run.first, lastPage: run.last, layout: opts.layout ?? false },
          engineCall(ctx),
        );
        for (const [i, pageText] of splitPages(text, run.last - run.first + 1).entries()) {
          characters += pageText.length;
          const entry = json ? JSON.stringify({ page: run.first + i, text: pageText }) : `${pageText}\f`;
          await write(json && done + i > 0 ? `,${entry}` : entry);
        }
        done += run.last - run.first + 1;
        ctx.progress.fraction(done, pages.length);
      }
      if (json) await write(']}\n');
    } finally {
      out.end();
      await once(out, 'close');
    }
    return {
      path: output,
      name: outputName(input.name, 'text', json ? 'json' : 'txt'),
      contentType: json ? 'application/json' : 'text/plain; charset=utf-8',
      facts: { pages: pages.length, characters },
    };
  },
});
