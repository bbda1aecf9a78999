// ocr: a searchable PDF (invisible text layer) from a scanned PDF or an image, with ocrmypdf and
// Tesseract. The `languages` enum lists the languages installed on this server.
import { Type } from '@sinclair/typebox';
import type { EngineStatus } from '../engines/types.js';
import type { FieldError } from '../errors/quire-error.js';
import { engineCall } from './framework/engine-call.js';
import { onlyInput } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { StringEnum } from './framework/schema.js';
import { defineTool } from './framework/types.js';
import { ocrLanguagesSchema } from './shared/ocr-languages.js';
import { checkImagePixels, checkOcrPdfPixels } from './shared/page-pixels.js';

/** The options schema for this server: the `languages` enum is what its Tesseract has installed. */
const options = (engines: readonly EngineStatus[]) => {
  return Type.Object(
    {
      languages: Type.Optional(
        ocrLanguagesSchema(
          engines,
          'Tesseract language codes of the text, most likely first. The enum is what this server has installed.',
        ),
      ),
      mode: Type.Optional(
        StringEnum(['skip-text', 'force', 'redo'], {
          default: 'skip-text',
          description:
            '`skip-text`: pages that already have text are left untouched. `force`: rasterise and OCR every page (existing text becomes image). `redo`: replace an earlier OCR layer, keep real text.',
        }),
      ),
      deskew: Type.Optional(Type.Boolean({ default: false, description: 'Straighten crooked scans first.' })),
      rotate_pages: Type.Optional(
        Type.Boolean({ default: false, description: 'Turn pages whose text runs sideways or upside down.' }),
      ),
      output: Type.Optional(
        StringEnum(['pdf', 'pdfa'], { default: 'pdf', description: '`pdfa` writes PDF/A-2b.' }),
      ),
    },
    {
      additionalProperties: false,
      examples: [{}, { languages: ['eng', 'deu'], mode: 'force', deskew: true, output: 'pdfa' }],
    },
  );
};

export const ocrTool = defineTool({
  name: 'ocr',
  title: 'Make a scan searchable (OCR)',
  group: 'OCR and conversion',
  keywords: ['text recognition', 'searchable', 'scan', 'tesseract'],
  description:
    'Recognises the text of a scanned PDF or an image (JPEG, PNG, TIFF) and adds it as an invisible, selectable text layer.',
  inputs: {
    minFiles: 1,
    maxFiles: 1,
    accepts: ['application/pdf', 'image/jpeg', 'image/png', 'image/tiff'],
    opens: 'pdf',
  },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['ocrmypdf', 'tesseract', 'qpdf', 'poppler'],
  steps: { inspect: 5, recognise: 90, check: 5 },
  checkRequest(o) {
    const errors: FieldError[] = [];
    // ocrmypdf refuses the combination: --redo-ocr keeps the page image exactly as it is.
    if (o.mode === 'redo' && o.deskew)
      errors.push({ pointer: '/options/deskew', detail: 'cannot be combined with mode "redo"' });
    return errors;
  },
  async run(ctx) {
    const input = onlyInput(ctx);
    const image = input.contentType !== 'application/pdf';
    // The runner opens a PDF; an image is one page.
    const pages = ctx.pages[0] ?? 1;
    // Before ocrmypdf starts: a page or image too large to decode fails in a second, not minutes.
    if (image) await checkImagePixels(input.path);
    else await checkOcrPdfPixels(ctx.engines.poppler, input.path, pages, engineCall(ctx));

    ctx.progress.step('recognise');
    const output = workFile(ctx.workDir, 'ocr');
    const o = ctx.options;
    await ctx.engines.ocrmypdf.ocr(
      input.path,
      output,
      {
        languages: o.languages ?? ['eng'],
        mode: o.mode ?? 'skip-text',
        deskew: o.deskew ?? false,
        rotatePages: o.rotate_pages ?? false,
        imageInput: image,
        ...(o.output === 'pdfa' ? { pdfa: '2' as const } : {}),
      },
      pages,
      // The OCR time limit is the engine's own (QUIRE_OCR_TIMEOUT_MS), not the generic one.
      {
        workDir: ctx.workDir,
        signal: ctx.signal,
        memoryBytes: ctx.limits.memoryBytes,
        progress: ctx.progress.engineSlot(),
      },
    );

    ctx.progress.step('check');
    const outPages = await ctx.engines.qpdf.pageCount(output, { workDir: ctx.workDir, signal: ctx.signal });
    return {
      path: output,
      name: outputName(input.name, 'ocr'),
      contentType: 'application/pdf',
      facts: { pages: outPages, languages: o.languages ?? ['eng'], pdfa: o.output === 'pdfa' ? '2b' : null },
    };
  },
});
