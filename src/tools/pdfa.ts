// pdfa: converts a PDF to PDF/A-1b, -2b or -3b through ocrmypdf's PDF/A path (Ghostscript plus
// ocrmypdf's own XMP and OutputIntent fixes) with OCR turned off. Chosen over plain Ghostscript
// with a PDFA_def.ps: both passed veraPDF on the same corpus sample, but only ocrmypdf keeps colours
// as they are (Ghostscript's PDF/A mode must convert every colour to one process space). The output
// is then validated by veraPDF against the conformance asked for, and the verdict is in the facts:
// the tool says what it wrote, not only what it meant to write.
import { Type } from '@sinclair/typebox';
import type { PdfaPart } from '../engines/ocrmypdf/ocrmypdf.js';
import { engineCall } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { StringEnum } from './framework/schema.js';
import { defineTool } from './framework/types.js';

/** The job record keeps a short list; a file that breaks more rules is far from PDF/A anyway. */
const MAX_RULES_IN_FACTS = 20;

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
  engines: ['ocrmypdf', 'qpdf', 'verapdf'],
  steps: { inspect: 5, convert: 80, check: 5, validate: 10 },
  async run(ctx) {
    const { input, pageCount: pages } = await onlyPdf(ctx);
    ctx.progress.step('convert');
    // The verdict's JVM starts while ocrmypdf converts, not after it.
    ctx.engines.verapdf.warm();
    const conformance = ctx.options.conformance ?? '2b';
    const output = workFile(ctx.workDir, 'pdfa');
    await ctx.engines.ocrmypdf.pdfa(input.path, output, conformance[0] as PdfaPart, pages, {
      workDir: ctx.workDir,
      signal: ctx.signal,
      memoryBytes: ctx.limits.memoryBytes,
      progress: ctx.progress.engineSlot(),
    });

    ctx.progress.step('check');
    await ctx.engines.qpdf.pageCount(output, { workDir: ctx.workDir, signal: ctx.signal });

    ctx.progress.step('validate');
    const [verdict] = await ctx.engines.verapdf.validate(output, conformance, engineCall(ctx));
    return {
      path: output,
      name: outputName(input.name, 'pdfa'),
      contentType: 'application/pdf',
      facts: {
        conformance: `PDF/A-${conformance}`,
        pages,
        validation: {
          validator: `veraPDF ${ctx.engines.verapdf.version}`,
          profile: verdict?.profile ?? `pdfa-${conformance}`,
          compliant: verdict?.compliant ?? false,
          // Rule names only (`6.2.4.3-2`): the validate tool gives their descriptions and pages.
          failed_rules: (verdict?.rules ?? [])
            .slice(0, MAX_RULES_IN_FACTS)
            .map((r) => `${r.clause}-${r.test}`),
        },
      },
    };
  },
});
