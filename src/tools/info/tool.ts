// info: a JSON report on a PDF — pages, sizes, rotation, version, encryption, metadata and
// structure flags (qpdf JSON) plus fonts and images (poppler).
import { writeFile } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { engineCall } from '../framework/engine-call.js';
import { onlyPdf } from '../framework/inputs.js';
import { outputName, workFile } from '../framework/output-name.js';
import { defineTool } from '../framework/types.js';
import { buildInfoReport, type QpdfInfoJson } from './info-report.js';

const options = Type.Object({}, { additionalProperties: false, examples: [{}] });

export const infoTool = defineTool({
  name: 'info',
  title: 'Document information',
  group: 'Pages and structure',
  keywords: ['inspect', 'details', 'page count', 'properties'],
  description:
    'Reports pages, page sizes and rotation, PDF version, encryption and permissions, metadata, linearization, forms, JavaScript, attachments, outlines, fonts and image count as JSON.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'application/json' },
  // The report is of the file as received: its encryption and permissions, not a decrypted copy's.
  encryption: 'reads',
  engines: ['qpdf', 'poppler'],
  steps: { inspect: 20, details: 40, fonts: 20, images: 20 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    const call = engineCall(ctx);
    const json = (await ctx.engines.qpdf.json(
      input.path,
      ['encrypt', 'outlines', 'attachments', 'acroform'],
      call,
    )) as QpdfInfoJson;

    ctx.progress.step('details');
    const pdfinfo = await ctx.engines.poppler.info(input.path, pageCount, call);
    ctx.progress.step('fonts');
    const fonts = await ctx.engines.poppler.fonts(input.path, call);
    ctx.progress.step('images');
    const images = await ctx.engines.poppler.images(input.path, call);

    const report = buildInfoReport(pageCount, pdfinfo, json, fonts, images);
    const output = workFile(ctx.workDir, 'info', 'json');
    await writeFile(output, `${JSON.stringify(report, null, 2)}\n`, { mode: 0o600 });
    return {
      path: output,
      name: outputName(input.name, 'info', 'json'),
      contentType: 'application/json',
      facts: { pages: pageCount },
    };
  },
});
