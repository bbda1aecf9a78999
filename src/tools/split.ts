// split: cuts one PDF into parts (given ranges, every N pages, or each page) and returns a ZIP of
// `<stem>-<part>.pdf`, or the PDF itself when there is only one part.
import { stat } from 'node:fs/promises';
import { type Static, Type } from '@sinclair/typebox';
import { QuireError } from '../errors/quire-error.js';
import { engineCall, engineCallWithProgress } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { fileStem, workFile } from './framework/output-name.js';
import { PageSelectionSchema, resolvePageList, toQpdfRange } from './framework/page-selection.js';
import { StringEnum } from './framework/schema.js';
import type { ToolContext, ToolInput } from './framework/types.js';
import { defineTool } from './framework/types.js';
import { writeZip, type ZipEntry } from './framework/zip.js';

const options = Type.Object(
  {
    mode: Type.Optional(
      StringEnum(['ranges', 'every', 'each'], {
        default: 'each',
        description:
          '`ranges`: one part per selection in `ranges`; `every`: parts of `pages` pages; `each`: one part per page.',
      }),
    ),
    ranges: Type.Optional(
      Type.Array(PageSelectionSchema('One part.'), {
        minItems: 1,
        maxItems: 1000,
        // The same part twice only multiplies the output (issue 25: 200 copies of "1" made 1 GB).
        uniqueItems: true,
        description:
          'With mode `ranges`: the parts, each a page selection (its pages in the order given), no two the same. The plan bounds how many (`max_fan_out` when steps follow, `max_pages`).',
        examples: [['1-3', '4-z']],
      }),
    ),
    pages: Type.Optional(
      Type.Integer({ minimum: 1, description: 'With mode `every`: pages per part.', examples: [10] }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{}, { mode: 'ranges', ranges: ['1-3', '4-z'] }, { mode: 'every', pages: 2 }],
    // Each mode's own option is required with it and refused without it, so a mismatch is a
    // 400 at upload time rather than a failed job.
    allOf: [
      {
        if: { required: ['mode'], properties: { mode: { const: 'ranges' } } },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
        then: { required: ['ranges'] },
        else: { not: { required: ['ranges'] } },
      },
      {
        if: { required: ['mode'], properties: { mode: { const: 'every' } } },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
        then: { required: ['pages'] },
        else: { not: { required: ['pages'] } },
      },
    ],
  },
);

type Options = Static<typeof options>;

interface Part {
  file: string;
  pages: string;
}

/** Zero-padded part numbers keep the ZIP listing in page order. */
const partName = (stem: string, index: number, count: number) =>
  `${stem}-${String(index + 1).padStart(String(count).length, '0')}.pdf`;

async function splitByRanges(
  ctx: ToolContext<Options>,
  input: ToolInput,
  pageCount: number,
): Promise<Part[]> {
  const ranges = ctx.options.ranges;
  if (!ranges) throw new QuireError('invalid_options', 'Mode `ranges` needs `ranges`');
  // Resolve every range first so a bad one fails before any work is done.
  const resolved = ranges.map((r) => toQpdfRange(resolvePageList(r, pageCount)));
  const parts: Part[] = [];
  let written = 0;
  for (const [i, pages] of resolved.entries()) {
    const file = workFile(ctx.workDir, 'part');
    await ctx.engines.qpdf.selectPages(input.path, pages, file, engineCall(ctx));
    // Every part may carry the input's shared resources (a 5 MB image on each page): distinct
    // ranges can still multiply bytes, so the result's limit is held part by part.
    written += (await stat(file)).size;
    checkOutputBytes(written, ctx.limits.maxOutputBytes);
    parts.push({ file, pages });
    ctx.progress.fraction(i + 1, resolved.length);
  }
  return parts;
}

async function splitEvery(ctx: ToolContext<Options>, input: ToolInput, pageCount: number, every: number) {
  const count = Math.ceil(pageCount / every);
  const files = await ctx.engines.qpdf.splitEvery(
    input.path,
    every,
    workFile(ctx.workDir, 'split', ''),
    count,
    engineCallWithProgress(ctx),
  );
  if (files.length !== count)
    throw new QuireError('engine_failed', `qpdf wrote ${files.length} of ${count} parts`);
  return files.map((file, i) => {
    const first = i * every + 1;
    const last = Math.min(pageCount, first + every - 1);
    return { file, pages: first === last ? String(first) : `${first}-${last}` };
  });
}

function checkOutputBytes(written: number, max: number | undefined): void {
  if (max === undefined || written <= max) return;
  throw new QuireError(
    'job_limit_exceeded',
    `The parts take ${written} bytes; the plan's limit (output_bytes) is ${max}.`,
    { extras: { limit: 'output_bytes', quota: max } },
  );
}

/** A selection without blanks or case, each `N-N` item as `N`: equal for equal parts. */
function sameSelection(range: string): string {
  return range
    .replace(/\s+/g, '')
    .toLowerCase()
    .split(',')
    .map((item) => {
      const [from, to] = item.split('-');
      return to === from ? from : item;
    })
    .join(',');
}

export const splitTool = defineTool({
  name: 'split',
  title: 'Split a PDF',
  group: 'Pages and structure',
  keywords: ['separate', 'extract pages', 'burst', 'divide'],
  description:
    'Splits a PDF into parts by page ranges, every N pages or one part per page; several parts come as a ZIP.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf', early: true },
  options,
  output: { contentType: 'application/zip', parts: ['application/pdf'] },
  engines: ['qpdf'],
  steps: { inspect: 5, split: 80, package: 15 },
  checkRequest(opts) {
    // Spellings of one selection (" 1", "1-1", "Z") are the same part as much as two equal strings.
    const seen = new Map<string, number>();
    return (opts.ranges ?? []).flatMap((range, i) => {
      const key = sameSelection(range);
      const first = seen.get(key);
      if (first === undefined) seen.set(key, i);
      return first === undefined
        ? []
        : [{ pointer: `/options/ranges/${i}`, detail: `repeats range ${first}` }];
    });
  },
  leastOutput(opts, pages) {
    const mode = opts.mode ?? 'each';
    const files =
      mode === 'ranges'
        ? (opts.ranges?.length ?? 1)
        : Math.ceil(pages / (mode === 'every' ? opts.pages! : 1));
    return { files, pages: 1 };
  },
  checkJob(opts) {
    if (opts.mode === 'every' && opts.pages === undefined) {
      throw new QuireError('invalid_options', 'Mode `every` needs `pages`');
    }
  },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    const mode = ctx.options.mode ?? 'each';
    ctx.progress.step('split');
    const parts =
      mode === 'ranges'
        ? await splitByRanges(ctx, input, pageCount)
        : await splitEvery(ctx, input, pageCount, mode === 'every' ? ctx.options.pages! : 1);

    ctx.progress.step('package');
    const stem = fileStem(input.name);
    const facts = { files: parts.map((p, i) => ({ name: partName(stem, i, parts.length), pages: p.pages })) };
    if (parts.length === 1) {
      return { path: parts[0]!.file, name: `${stem}-1.pdf`, contentType: 'application/pdf', facts };
    }
    const entries: ZipEntry[] = parts.map((p, i) => ({
      path: p.file,
      name: partName(stem, i, parts.length),
    }));
    const zip = workFile(ctx.workDir, 'split', 'zip');
    await writeZip(entries, zip, ctx.signal);
    const files = entries.map((e) => ({ ...e, contentType: 'application/pdf' }));
    return { path: zip, name: `${stem}-split.zip`, contentType: 'application/zip', facts, parts: files };
  },
});
