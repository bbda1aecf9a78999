// pdf-to-office: a PDF to an editable Word document (.docx) with real paragraphs, tables and images,
// converted by pdf2docx in the document sandbox (no network, no view of the host's files).
import { Type } from '@sinclair/typebox';
import { engineCall } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { StringEnum } from './framework/schema.js';
import { defineTool } from './framework/types.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const options = Type.Object(
  {
    format: Type.Optional(
      StringEnum(['docx'], {
        default: 'docx',
        description:
          'The output format: `docx` (Word). Spreadsheets and slides are not offered: see docs/tools.md.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{}, { format: 'docx' }] },
);

export const pdfToOfficeTool = defineTool({
  name: 'pdf-to-office',
  title: 'PDF to Word',
  group: 'Forms, redaction and Office',
  keywords: ['word', 'docx', 'convert', 'editable'],
  description:
    'Converts a PDF into an editable Word document (.docx): text as paragraphs in reading order, with tables, images and page layout kept where they can be recognised.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: DOCX },
  engines: ['qpdf', 'pdf2docx'],
  steps: { inspect: 10, convert: 90 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    ctx.progress.step('convert');
    const output = workFile(ctx.workDir, 'converted', 'docx');
    await ctx.engines.pdf2docx.toDocx(input.path, output, engineCall(ctx));
    return {
      path: output,
      name: outputName(input.name, 'converted', 'docx'),
      contentType: DOCX,
      facts: { pages: pageCount, format: 'docx' },
    };
  },
});
