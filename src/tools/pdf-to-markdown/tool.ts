// pdf-to-markdown: a PDF as Markdown or as JSON blocks for machines (retrieval pipelines chunking by
// heading and table, citing page and box): headings with levels, paragraphs in reading order, lists,
// tables, links, optional page markers, running headers and footers left out on request, images in a
// ZIP beside the Markdown. pymupdf4llm converts in the document sandbox; with `ocr: auto`, pages
// without a text layer are OCRed first by ocrmypdf. docs/tools.md says why this engine.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import type { EngineStatus } from '../../engines/types.js';
import { QuireError } from '../../errors/quire-error.js';
import { engineCall, engineCallWithProgress } from '../framework/engine-call.js';
import { onlyPdf } from '../framework/inputs.js';
import { outputName, workFile } from '../framework/output-name.js';
import { PageSelectionSchema, resolvePageList } from '../framework/page-selection.js';
import { StringEnum } from '../framework/schema.js';
import type { ToolContext, ToolOutput } from '../framework/types.js';
import { defineTool } from '../framework/types.js';
import { writeZip } from '../framework/zip.js';
import { ocrLanguagesSchema } from '../shared/ocr-languages.js';
import { convertInRuns } from './runs.js';
import { pagesWithoutText, recogniseText } from './scanned-pages.js';

const MARKDOWN = 'text/markdown; charset=utf-8';

const options = (engines: readonly EngineStatus[]) =>
  Type.Object(
    {
      format: Type.Optional(
        StringEnum(['markdown', 'json'], {
          default: 'markdown',
          description:
            '`markdown`: GitHub-flavoured Markdown (tables as GitHub tables); `json`: {"blocks": [{type, page, bbox, text, …}], "pages": n}.',
        }),
      ),
      pages: Type.Optional(
        PageSelectionSchema('Pages to convert, in the order given; empty or omitted = all.'),
      ),
      page_markers: Type.Optional(
        Type.Boolean({
          default: false,
          description: 'Markdown only: start each page with a comment line `<!-- page n -->`.',
        }),
      ),
      drop_headers_footers: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            'Leave out lines repeated at the same height near the top or bottom of most pages (running headers, footers, page numbers).',
        }),
      ),
      images: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            'Extract the images as PNG files: the result is then a ZIP holding the document and the images it references by name.',
        }),
      ),
      ocr: Type.Optional(
        StringEnum(['auto', 'off'], {
          default: 'auto',
          description:
            '`auto`: pages without a text layer are OCRed first (ocrmypdf, Tesseract); `off`: they come out empty.',
        }),
      ),
      languages: Type.Optional(
        ocrLanguagesSchema(
          engines,
          'Languages for `ocr: auto`, most likely first (installed on this server).',
        ),
      ),
    },
    {
      additionalProperties: false,
      examples: [{}, { format: 'json', pages: '1', drop_headers_footers: true }],
    },
  );

type Options = Static<ReturnType<typeof options>>;

/** `ocr: auto`: the input, or an OCRed copy when some selected pages have no text layer. */
async function withTextLayer(
  ctx: ToolContext<Options>,
  input: string,
  pages: number[],
  pageCount: number,
): Promise<{ path: string; ocrPages: number[]; ocrSkipped?: string }> {
  if ((ctx.options.ocr ?? 'auto') === 'off') return { path: input, ocrPages: [] };
  const empty = await pagesWithoutText(ctx.engines.poppler, input, pages, engineCall(ctx));
  if (empty.length === 0) return { path: input, ocrPages: [] };
  ctx.progress.step('ocr');
  const output = workFile(ctx.workDir, 'ocr');
  try {
    // The OCR time limit is the engine's own (QUIRE_OCR_TIMEOUT_MS), as for the `ocr` tool.
    await recogniseText(
      ctx.engines,
      input,
      output,
      { languages: ctx.options.languages ?? ['eng'], pageCount },
      {
        workDir: ctx.workDir,
        signal: ctx.signal,
        memoryBytes: ctx.limits.memoryBytes,
        progress: ctx.progress.engineSlot(),
      },
    );
  } catch (error) {
    // `auto` is best effort: a page or image too large to OCR leaves the text layer as it is (a
    // poster, a book's cover), and the result says why; every other failure fails the job.
    if (error instanceof QuireError && error.code === 'limit_page_pixels_exceeded')
      return { path: input, ocrPages: [], ocrSkipped: error.code };
    throw error;
  }
  return { path: output, ocrPages: empty };
}

export const pdfToMarkdownTool = defineTool({
  name: 'pdf-to-markdown',
  group: 'Content and images',
  keywords: ['markdown', 'llm', 'rag', 'structure', 'headings', 'tables', 'json blocks'],
  title: 'PDF to Markdown or JSON',
  description:
    'Converts a PDF into Markdown or JSON blocks for machines: headings with levels, paragraphs in reading order (columns one after the other), lists, tables, links and images; scanned pages are OCRed first.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: MARKDOWN },
  engines: ['qpdf', 'poppler', 'pymupdf4llm'],
  steps: { inspect: 5, ocr: 45, convert: 50 },
  async run(ctx): Promise<ToolOutput> {
    const { input, pageCount } = await onlyPdf(ctx);
    const o = ctx.options;
    const pages = resolvePageList(o.pages, pageCount);
    const source = await withTextLayer(ctx, input.path, pages, pageCount);

    ctx.progress.step('convert');
    const json = o.format === 'json';
    const document = workFile(ctx.workDir, 'structure', json ? 'json' : 'md');
    const imageDir = path.join(ctx.workDir, 'images');
    if (o.images) await mkdir(imageDir, { mode: 0o700 });
    const result = await convertInRuns(
      ctx.engines.pymupdf4llm,
      {
        input: source.path,
        output: document,
        scratch: workFile(ctx.workDir, 'structure-run', 'part'),
        imageDir,
        format: json ? 'json' : 'markdown',
        pages,
        pageMarkers: o.page_markers ?? false,
        dropRunning: o.drop_headers_footers ?? false,
        images: o.images ?? false,
      },
      engineCallWithProgress(ctx),
    );
    const facts = {
      ...result.counts,
      format: json ? 'json' : 'markdown',
      ocr_pages: source.ocrPages,
      ...(source.ocrSkipped ? { ocr_skipped: source.ocrSkipped } : {}),
    };
    const ext = json ? 'json' : 'md';
    const contentType = json ? 'application/json' : MARKDOWN;
    if (!o.images)
      return { path: document, name: outputName(input.name, 'structure', ext), contentType, facts };
    const zip = workFile(ctx.workDir, 'structure', 'zip');
    const entries = [
      { path: document, name: `document.${ext}` },
      ...result.images.map((p) => ({ path: p, name: path.basename(p) })),
    ];
    await writeZip(entries, zip, ctx.signal);
    return {
      path: zip,
      name: outputName(input.name, 'structure', 'zip'),
      contentType: 'application/zip',
      facts,
    };
  },
});
