// office-to-pdf: Word, Excel, PowerPoint, OpenDocument, RTF, text and CSV files to PDF with a pool
// of LibreOffice instances; an optional page selection is then cut out of the result with qpdf.
import { Type } from '@sinclair/typebox';
import { QuireError } from '../errors/quire-error.js';
import { onlyInput } from './framework/inputs.js';
import { checkPageLimit } from './framework/opening.js';
import { outputName, workFile } from './framework/output-name.js';
import { PageSelectionSchema, resolvePageList, toQpdfRange } from './framework/page-selection.js';
import { StringEnum } from './framework/schema.js';
import type { InputType } from './framework/types.js';
import { defineTool } from './framework/types.js';

const options = Type.Object(
  {
    pages: Type.Optional(PageSelectionSchema('Pages of the converted document to keep; empty = all.')),
    landscape: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Lay text documents and spreadsheets out on landscape pages. Slides keep their own shape.',
      }),
    ),
    accessibility: Type.Optional(
      StringEnum(['none', 'tagged', 'pdf-ua-1'], {
        default: 'none',
        description:
          "`tagged`: a tagged PDF (structure tree of headings, paragraphs, lists, tables, figures with their alternative text, and bookmarks). `pdf-ua-1`: tagged through LibreOffice's PDF/UA export, which also declares PDF/UA-1 and shows the document title; text documents only pass when the document itself is accessible (a title, alternative text on images). Check the result with `validate`.",
      }),
    ),
    password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          'The password of an encrypted document (Word, Excel, PowerPoint, OpenDocument). Secret: redacted in every view.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{}, { pages: '1', landscape: true }, { accessibility: 'pdf-ua-1' }],
  },
);

/** Every type the sniffer recognises as an office document or as text LibreOffice can lay out. */
export const OFFICE_INPUTS: readonly InputType[] = [
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/x-ole-storage',
  'application/rtf',
  'text/plain',
  'text/csv',
];

export const officeToPdfTool = defineTool({
  name: 'office-to-pdf',
  title: 'Convert an office document to PDF',
  group: 'OCR and conversion',
  keywords: ['word', 'docx', 'excel', 'xlsx', 'powerpoint', 'pptx', 'convert'],
  description:
    'Converts a document (docx, doc, odt, rtf, txt), spreadsheet (xlsx, xls, ods, csv) or presentation (pptx, ppt, odp) to PDF with LibreOffice. Macros never run and the document cannot reach the network.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: OFFICE_INPUTS },
  options,
  secretOptions: ['password'],
  output: { contentType: 'application/pdf' },
  engines: ['libreoffice', 'qpdf'],
  steps: { convert: 85, pages: 15 },
  async run(ctx) {
    const input = onlyInput(ctx);
    const call = { workDir: ctx.workDir, signal: ctx.signal };
    ctx.progress.step('convert');
    const converted = workFile(ctx.workDir, 'converted');
    // The conversion's time limit is QUIRE_OFFICE_TIMEOUT_MS, applied by the pool.
    await ctx.engines.libreoffice.toPdf(
      input.path,
      converted,
      {
        landscape: ctx.options.landscape ?? false,
        accessibility: ctx.options.accessibility ?? 'none',
        ...(ctx.options.password === undefined ? {} : { password: ctx.options.password }),
      },
      call,
    );

    ctx.progress.step('pages');
    const total = await ctx.engines.qpdf.pageCount(converted, call);
    if (total < 1) throw new QuireError('engine_failed', 'LibreOffice produced an empty PDF');
    const selection = ctx.options.pages?.trim() ? resolvePageList(ctx.options.pages, total) : undefined;
    checkPageLimit(selection?.length ?? total, ctx.limits.maxPages);
    let output = converted;
    if (selection) {
      output = workFile(ctx.workDir, 'selected');
      await ctx.engines.qpdf.selectPages(converted, toQpdfRange(selection), output, call);
    }
    return {
      path: output,
      name: outputName(input.name, 'converted'),
      contentType: 'application/pdf',
      facts: {
        pages: selection?.length ?? total,
        source_pages: total,
        accessibility: ctx.options.accessibility ?? 'none',
      },
    };
  },
});
