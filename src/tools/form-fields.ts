// form-fields: lists a PDF's AcroForm fields (name, type, value, options, flags, pages and boxes) as
// JSON, read from bounded qpdf JSON rather than the whole object graph.
import { writeFile } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { engineCall } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { defineTool } from './framework/types.js';
import { publicField, readForm } from './shared/form-model.js';

const options = Type.Object({}, { additionalProperties: false, examples: [{}] });

export const formFieldsTool = defineTool({
  name: 'form-fields',
  title: 'List form fields',
  group: 'Forms, redaction and Office',
  keywords: ['acroform', 'list fields', 'form'],
  description:
    'Lists the fillable form fields (AcroForm) as JSON: full name, type, current value, the values a choice, checkbox or radio group accepts, whether it is required or read-only, and the page and box of each widget.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'application/json' },
  engines: ['qpdf'],
  steps: { inspect: 30, read: 70 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    ctx.progress.step('read');
    const form = await readForm(ctx.engines.qpdf, input.path, engineCall(ctx));
    const report = { xfa_only: form.xfaOnly, fields: form.fields.map(publicField) };
    const output = workFile(ctx.workDir, 'fields', 'json');
    await writeFile(output, `${JSON.stringify(report, null, 2)}\n`, { mode: 0o600 });
    return {
      path: output,
      name: outputName(input.name, 'fields', 'json'),
      contentType: 'application/json',
      facts: { pages: pageCount, fields: form.fields.length, xfa_only: form.xfaOnly },
    };
  },
});
