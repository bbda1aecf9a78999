// linearize: rewrites a PDF for fast web view (first page first, hint tables), and checks the
// result with qpdf's own linearization check before handing it out.
import { Type } from '@sinclair/typebox';
import { QuireError } from '../errors/quire-error.js';
import { engineCall, engineCallWithProgress } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { defineTool } from './framework/types.js';

const options = Type.Object({}, { additionalProperties: false, examples: [{}] });

export const linearizeTool = defineTool({
  name: 'linearize',
  title: 'Optimize for fast web view',
  group: 'Pages and structure',
  keywords: ['fast web view', 'optimize for web', 'streaming'],
  description: 'Linearizes the PDF so a browser can show the first page before the whole file has arrived.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf', early: true },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { inspect: 10, linearize: 80, verify: 10 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    ctx.progress.step('linearize');
    const output = workFile(ctx.workDir, 'linearized');
    await ctx.engines.qpdf.linearize(input.path, output, engineCallWithProgress(ctx));

    // A file that claims linearization but has wrong hints is worse than none: readers trust it.
    ctx.progress.step('verify');
    if (!(await ctx.engines.qpdf.linearizationValid(output, engineCall(ctx)))) {
      throw new QuireError('engine_failed', 'qpdf wrote a file that fails its linearization check');
    }
    return {
      path: output,
      name: outputName(input.name, 'linearized'),
      contentType: 'application/pdf',
      facts: { pages: pageCount },
    };
  },
});
