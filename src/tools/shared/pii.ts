// What detect-pii and redact's `detect` share: the options that name the kinds of personal data
// (the pymupdf engine's pii.py finds them), the region phone numbers are read for, and `ocr: auto`,
// which gives the pages without a text layer one with ocrmypdf (`--skip-text`: pages with text are
// left as they are) so that scanned values are found too.
import { Type } from '@sinclair/typebox';
import { PII_KINDS, type PiiKind } from '../../engines/pymupdf/detect.js';
import { engineCall } from '../framework/engine-call.js';
import { workFile } from '../framework/output-name.js';
import { StringEnum } from '../framework/schema.js';
import type { ToolContext } from '../framework/types.js';
import { checkOcrPdfPixels } from './page-pixels.js';

export const piiKinds = (description: string, extra: { default?: PiiKind[] } = {}) =>
  Type.Array(StringEnum(PII_KINDS), { minItems: 1, uniqueItems: true, description, ...extra });

export const piiRegion = () =>
  Type.Optional(
    Type.String({
      pattern: '^[A-Z]{2}$',
      default: 'US',
      description:
        'ISO 3166-1 alpha-2 region that phone numbers written without a country code are read for (`+` numbers are found whatever it is).',
    }),
  );

export const piiOcr = (fallback: 'auto' | 'off') =>
  Type.Optional(
    StringEnum(['auto', 'off'], {
      default: fallback,
      description:
        '`auto`: pages without any text (scans) are recognised first (ocrmypdf, English), so their values are found too; `off`: only the existing text is read.',
    }),
  );

export type { PiiKind };

/** The OCR text layer of a PDF's pages without text, as a new PDF (the other pages as they were). */
export async function recognisePages<O>(
  ctx: ToolContext<O>,
  input: string,
  pageCount: number,
): Promise<string> {
  await checkOcrPdfPixels(ctx.engines.poppler, input, pageCount, engineCall(ctx));
  const output = workFile(ctx.workDir, 'ocr');
  await ctx.engines.ocrmypdf.ocr(
    input,
    output,
    { languages: ['eng'], mode: 'skip-text', deskew: false, rotatePages: false, imageInput: false },
    pageCount,
    // The OCR time limit is the engine's own (QUIRE_OCR_TIMEOUT_MS), as in the ocr tool.
    {
      workDir: ctx.workDir,
      signal: ctx.signal,
      memoryBytes: ctx.limits.memoryBytes,
      progress: ctx.progress.engineSlot(),
    },
  );
  return output;
}

/** The pages whose text (pdftotext) is empty: scans without a text layer. */
export async function textlessPages<O>(ctx: ToolContext<O>, input: string, pageCount: number) {
  const text = await ctx.engines.poppler.text(input, {}, engineCall(ctx));
  const pages = text.split('\f').slice(0, pageCount);
  while (pages.length < pageCount) pages.push('');
  return pages.flatMap((page, i) => (page.trim() ? [] : [i + 1]));
}
