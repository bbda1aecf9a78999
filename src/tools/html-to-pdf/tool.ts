// html-to-pdf: prints an uploaded page (one .html, or a .zip with index.html and its assets) with
// headless Chromium. The page may run JavaScript but may load nothing except its own files.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { QuireError } from '../../errors/quire-error.js';
import { onlyInput } from '../framework/inputs.js';
import { checkPageLimit } from '../framework/opening.js';
import { outputName, workFile } from '../framework/output-name.js';
import { StringEnum } from '../framework/schema.js';
import { defineTool } from '../framework/types.js';
import { extractSite } from './html-bundle.js';
import { identifyPdfua } from './pdfua-identification.js';

/** tools.md: scripts get at most 10 s after `load` to finish drawing. */
const MAX_WAIT_MS = 10_000;

const options = Type.Object(
  {
    page_size: Type.Optional(
      StringEnum(['a4', 'a3', 'a5', 'letter', 'legal'], { default: 'a4', description: 'Paper size.' }),
    ),
    landscape: Type.Optional(Type.Boolean({ default: false, description: 'Landscape orientation.' })),
    margin_mm: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 50,
        default: 10,
        description: 'Margin on every side, in millimetres.',
      }),
    ),
    print_background: Type.Optional(
      Type.Boolean({ default: true, description: 'Print background colours and images.' }),
    ),
    accessibility: Type.Optional(
      StringEnum(['none', 'tagged', 'pdf-ua-1'], {
        default: 'none',
        description:
          "`tagged`: Chromium's tagged PDF (a structure tree from the page's HTML: headings, paragraphs, lists, tables, images with their `alt`, links) with an outline from the headings. `pdf-ua-1`: the same, declared PDF/UA-1 in XMP metadata with the page's `<title>`; it passes PDF/UA-1 checks when the page itself is accessible (`lang`, `<title>`, `alt` text, table headers). Check the result with `validate`.",
      }),
    ),
    wait_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_WAIT_MS,
        default: 0,
        description: 'Extra time after the page has loaded for scripts to finish, in milliseconds.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {},
      { page_size: 'letter', landscape: true, margin_mm: 15, wait_ms: 500 },
      { accessibility: 'pdf-ua-1' },
    ],
  },
);

export const htmlToPdfTool = defineTool({
  name: 'html-to-pdf',
  title: 'Print a web page to PDF',
  group: 'OCR and conversion',
  keywords: ['web page', 'url', 'print', 'convert'],
  description:
    'Prints an HTML page, or a ZIP with index.html and its styles, scripts, images and fonts, to PDF with headless Chromium. The page has no network access: only the uploaded files load.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['text/html', 'application/zip'] },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['chromium', 'qpdf'],
  steps: { unpack: 10, print: 80, check: 10 },
  async run(ctx) {
    const input = onlyInput(ctx);
    const call = { workDir: ctx.workDir, signal: ctx.signal };
    ctx.progress.step('unpack');
    // The site folder is the only thing the page can see; inputs and outputs stay outside it.
    const siteDir = path.join(ctx.workDir, 'site');
    await mkdir(siteDir, { mode: 0o700 });
    let entry = 'index.html';
    if (input.contentType === 'application/zip') entry = await extractSite(input.path, siteDir);
    else await copyFile(input.path, path.join(siteDir, entry));

    ctx.progress.step('print');
    const output = workFile(ctx.workDir, 'printed');
    const o = ctx.options;
    // The print's time limit is QUIRE_BROWSER_TIMEOUT_MS, applied by the engine.
    const printed = await ctx.engines.chromium.htmlToPdf(
      siteDir,
      entry,
      output,
      {
        pageSize: o.page_size ?? 'a4',
        landscape: o.landscape ?? false,
        marginMm: o.margin_mm ?? 10,
        printBackground: o.print_background ?? true,
        waitMs: o.wait_ms ?? 0,
        tagged: (o.accessibility ?? 'none') !== 'none',
      },
      call,
      ctx.account,
    );

    ctx.progress.step('check');
    // Chromium's own output usually tells its page count; qpdf is asked only when it does not.
    const pages = printed.pages ?? (await ctx.engines.qpdf.pageCount(output, call));
    if (pages < 1) throw new QuireError('engine_failed', 'Chromium produced an empty PDF');
    checkPageLimit(pages, ctx.limits.maxPages);
    let result = output;
    if (o.accessibility === 'pdf-ua-1') {
      result = workFile(ctx.workDir, 'pdfua');
      await identifyPdfua(ctx.engines.qpdf, output, result, call);
    }
    return {
      path: result,
      name: outputName(input.name, 'printed'),
      contentType: 'application/pdf',
      facts: { pages, accessibility: o.accessibility ?? 'none' },
    };
  },
});
