// page-numbers: writes "{n}" / "Page {n} of {total}" on selected pages, as a stamp (pdf-lib) laid
// over the input by qpdf, so the number is real, extractable text on each page.
import { type Static, Type } from '@sinclair/typebox';
import { rgb } from 'pdf-lib';
import { onlyPdf } from './framework/inputs.js';
import { outputName } from './framework/output-name.js';
import { PageSelectionSchema, resolvePageSet } from './framework/page-selection.js';
import { StringEnum } from './framework/schema.js';
import { defineTool } from './framework/types.js';
import { applyStamp, drawCenteredText, isStampEncodable, stampTargets, writeStamp } from './shared/stamp.js';

const options = Type.Object(
  {
    format: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[^\\u0000-\\u001f\\u007f]+$',
        default: '{n}',
        description:
          'The label: `{n}` is the page number, `{total}` the number of the last page (Latin-1 characters, Helvetica).',
        examples: ['{n}', 'Page {n} of {total}'],
      }),
    ),
    start: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        default: 1,
        description: 'The number the first page of the document gets; later pages count on from it.',
        examples: [1],
      }),
    ),
    position: Type.Optional(
      StringEnum(['top-left', 'top-center', 'top-right', 'bottom-left', 'bottom-center', 'bottom-right'], {
        default: 'bottom-center',
        description: 'Where the label sits on the page as the reader sees it.',
      }),
    ),
    font_size: Type.Optional(
      Type.Number({
        minimum: 4,
        maximum: 200,
        default: 10,
        description: 'Text size in points.',
        examples: [10],
      }),
    ),
    margin_mm: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 200,
        default: 10,
        description: 'Distance from the page edges to the label, in millimetres.',
        examples: [10],
      }),
    ),
    pages: Type.Optional(
      PageSelectionSchema('Pages that get a label; empty or omitted = all. Unlabelled pages still count.'),
    ),
  },
  {
    additionalProperties: false,
    examples: [{}, { format: 'Page {n} of {total}', position: 'bottom-right', start: 1 }],
  },
);

type Options = Static<typeof options>;

/** The label of one page; `{total}` is the number the last page gets. */
export function labelFor(format: string, page: number, pageCount: number, start: number): string {
  const n = String(start + page - 1);
  const total = String(start + pageCount - 1);
  return format.replaceAll('{n}', n).replaceAll('{total}', total);
}

const MM = 72 / 25.4;

export const pageNumbersTool = defineTool({
  name: 'page-numbers',
  title: 'Add page numbers',
  group: 'Content and images',
  keywords: ['paginate', 'numbering', 'bates', 'footer'],
  description:
    'Writes page numbers (with an optional "{n} of {total}" format) on the selected pages at a corner or edge.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf', 'poppler'],
  steps: { inspect: 10, stamp: 15, apply: 75 },
  checkRequest(opts: Options) {
    const format = opts.format ?? '{n}';
    if (!isStampEncodable(format.replaceAll('{n}', '1').replaceAll('{total}', '1'))) {
      return [
        {
          pointer: '/options/format',
          detail: 'has characters outside Latin-1 (WinAnsi), which the stamp font cannot write',
        },
      ];
    }
    return [];
  },
  async run(ctx) {
    const { input, pageCount: count } = await onlyPdf(ctx);
    const opts = ctx.options;
    const pages = resolvePageSet(opts.pages, count);
    const targets = await stampTargets(ctx, input, pages, count);

    ctx.progress.step('stamp');
    const size = opts.font_size ?? 10;
    const margin = (opts.margin_mm ?? 10) * MM;
    const [vertical, horizontal] = (opts.position ?? 'bottom-center').split('-');
    // One stamp page per numbered page: every label differs. Each is a few hundred bytes.
    const plan = await writeStamp(
      ctx.workDir,
      targets,
      (t) => String(t.page),
      (stamp) => {
        const font = stamp.font;
        const label = labelFor(opts.format ?? '{n}', stamp.targets[0]!, count, opts.start ?? 1);
        const width = font.widthOfTextAtSize(label, size);
        const height = font.heightAtSize(size, { descender: false });
        const x =
          horizontal === 'left'
            ? margin + width / 2
            : horizontal === 'right'
              ? stamp.width - margin - width / 2
              : stamp.width / 2;
        const y = vertical === 'top' ? stamp.height - margin - height / 2 : margin + height / 2;
        drawCenteredText(stamp.page, label, x, y, {
          font,
          size,
          color: rgb(0, 0, 0),
          opacity: 1,
          rotation: 0,
        });
      },
    );

    ctx.progress.step('apply');
    const output = await applyStamp(ctx, input, plan, 'over', 'numbered');
    return {
      path: output,
      name: outputName(input.name, 'numbered'),
      contentType: 'application/pdf',
      facts: { pages: count, numbered_pages: pages.length },
    };
  },
});
