// detect-pii: finds personal data in a PDF — e-mail addresses, phone numbers, IBANs, payment card
// numbers, IP addresses and national identifiers, each checked (check digits, Luhn, valid numbering)
// — with its page and rectangles, as JSON. The full values are in the result file only; the job's
// facts are counts per kind.
import { readFile, writeFile } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { type DetectReport, PII_KINDS } from '../engines/pymupdf/detect.js';
import { engineCall } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { defineTool } from './framework/types.js';
import { piiKinds, piiOcr, piiRegion, recognisePages } from './shared/pii.js';

const options = Type.Object(
  {
    kinds: Type.Optional(piiKinds('The kinds to look for; all when omitted.', { default: [...PII_KINDS] })),
    region: piiRegion(),
    ocr: piiOcr('auto'),
  },
  {
    additionalProperties: false,
    examples: [{ ocr: 'off' }, { kinds: ['email', 'iban', 'card'], region: 'DE', ocr: 'auto' }],
  },
);

const readReport = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as DetectReport;

export const detectPiiTool = defineTool({
  name: 'detect-pii',
  group: 'Forms, redaction and Office',
  keywords: ['personal data', 'gdpr', 'find pii', 'sensitive', 'email', 'phone', 'iban'],
  title: 'Find personal data',
  description:
    'Finds e-mail addresses, phone numbers, IBANs, payment card numbers, IP addresses and national identification numbers (checked by their check digits) in a PDF, scanned pages included, and reports each with its kind, page, rectangles and a masked form as JSON.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'application/json' },
  engines: ['qpdf', 'pymupdf', 'poppler', 'ocrmypdf', 'tesseract'],
  steps: { inspect: 5, detect: 25, ocr: 60, scanned: 10 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    const o = ctx.options;
    const job = { kinds: o.kinds ?? [...PII_KINDS], region: o.region ?? 'US' };
    ctx.progress.step('detect');
    const first = workFile(ctx.workDir, 'pii', 'json');
    const summary = await ctx.engines.pymupdf.detect(input.path, first, job, engineCall(ctx));
    const report = await readReport(first);
    const scanned = (o.ocr ?? 'auto') === 'auto' ? summary.textless_pages : [];
    if (scanned.length > 0) {
      ctx.progress.step('ocr');
      const recognised = await recognisePages(ctx, input.path, pageCount);
      ctx.progress.step('scanned');
      const second = workFile(ctx.workDir, 'pii-ocr', 'json');
      await ctx.engines.pymupdf.detect(recognised, second, { ...job, pages: scanned }, engineCall(ctx));
      report.matches = [...report.matches, ...(await readReport(second)).matches].sort(
        (a, b) => a.page - b.page,
      );
    }
    const counts = Object.fromEntries(
      job.kinds.map((kind) => [kind, report.matches.filter((m) => m.kind === kind).length]),
    );
    const output = workFile(ctx.workDir, 'pii-report', 'json');
    const file = {
      pages: pageCount,
      counts,
      ocr_pages: scanned,
      matches: report.matches,
      elsewhere: report.elsewhere,
    };
    await writeFile(output, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    return {
      path: output,
      name: outputName(input.name, 'pii', 'json'),
      contentType: 'application/json',
      // Counts only: a value, even masked, is never a fact (facts are stored and sent in webhooks).
      facts: {
        pages: pageCount,
        matches: report.matches.length,
        counts,
        pages_with_matches: [...new Set(report.matches.map((m) => m.page))],
        ocr_pages: scanned,
        textless_pages: summary.textless_pages.filter((p) => !scanned.includes(p)),
        elsewhere: report.elsewhere,
      },
    };
  },
});
