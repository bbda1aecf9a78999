// pdfa: converts a PDF to PDF/A-1b, -2b or -3b through ocrmypdf's PDF/A path (Ghostscript plus
// ocrmypdf's own XMP and OutputIntent fixes) with OCR turned off. Chosen over plain Ghostscript
// with a PDFA_def.ps: both passed veraPDF on the same corpus sample, but only ocrmypdf keeps colours
// as they are (Ghostscript's PDF/A mode must convert every colour to one process space).
import { Type } from '@sinclair/typebox';
import type { PdfaPart } from '../engines/ocrmypdf/ocrmypdf.js';
import { onlyPdf } from './lib/inputs.js';
import { outputName, workFile } from './lib/output-name.js';
import { StringEnum } from './lib/schema.js';
import { defineTool } from './lib/types.js';

const options = Type.Object(
  {
    conformance: Type.Optional(
      StringEnum(['1b', '2b', '3b'], {
        default: '2b',
        description:
          'PDF/A part and level. `2b` suits most archives; `1b` for old archive systems; `3b` allows embedded files.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{}, { conformance: '1b' }] },
);

export const pdfaTool = defineTool({
  name: 'pdfa',
  title: 'Convert a PDF to PDF/A',
  group: 'OCR and conversion',
  keywords: ['archive', 'pdf/a', 'long-term', 'iso 19005'],
  description:
    'Rewrites a PDF as PDF/A (ISO 19005) for long-term archiving: fonts embedded, colours tagged with an ICC profile, XMP metadata declaring the conformance.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  // PDF/A forbids encryption (ISO 19005-2, 6.1.3: no /Encrypt in the trailer).
  encryption: 'drops',
  options,
  output: { contentType: 'application/pdf' },
  engines: ['ocrmypdf', 'qpdf'],
  steps: { inspect: 5, convert: 90, check: 5 },
  async run(ctx) {
    const { input, pageCount: pages } = onlyPdf(ctx);
    ctx.progress.step('convert');
    const conformance = ctx.options.conformance ?? '2b';
    const output = workFile(ctx.workDir, 'pdfa');
    await ctx.engines.ocrmypdf.pdfa(input.path, output, conformance[0] as PdfaPart, pages, {
      workDir: ctx.workDir,
      signal: ctx.signal,
      memoryBytes: ctx.limits.memoryBytes,
      onProgress: (done, total) => ctx.progress.fraction(done, total),
    });

    ctx.progress.step('check');
    await ctx.engines.qpdf.pageCount(output, { workDir: ctx.workDir, signal: ctx.signal });
    return {
      path: output,
      name: outputName(input.name, 'pdfa'),
      contentType: 'application/pdf',
      facts: { conformance: `PDF/A-${conformance}`, pages },
    };
  },
});
