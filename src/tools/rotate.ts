// rotate: turns selected pages clockwise by 90/180/270 degrees on top of their current rotation.
import { Type } from '@sinclair/typebox';
import { engineCallWithProgress } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { engineOutputFile, outputName } from './framework/output-name.js';
import { PageSelectionSchema, resolvePageSet, toQpdfRange } from './framework/page-selection.js';
import { IntegerEnum } from './framework/schema.js';
import { defineTool } from './framework/types.js';

const options = Type.Object(
  {
    angle: IntegerEnum([90, 180, 270], {
      description: 'Degrees clockwise, added to each page’s current rotation.',
      examples: [90],
    }),
    pages: Type.Optional(PageSelectionSchema('Pages to rotate; empty or omitted = all pages.')),
  },
  { additionalProperties: false, examples: [{ angle: 90 }, { angle: 180, pages: '1,3-z' }] },
);

export const rotateTool = defineTool({
  name: 'rotate',
  title: 'Rotate pages',
  group: 'Pages and structure',
  keywords: ['turn', 'orientation', 'landscape', 'portrait'],
  description:
    'Rotates the selected pages clockwise by 90, 180 or 270 degrees relative to their current rotation.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf', early: true },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { inspect: 10, rotate: 90 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    const pages = toQpdfRange(resolvePageSet(ctx.options.pages, pageCount));

    ctx.progress.step('rotate');
    const output = engineOutputFile(ctx.workDir, 'rotated');
    await ctx.engines.qpdf.rotate(input.path, output, ctx.options.angle, pages, engineCallWithProgress(ctx));
    return {
      path: output,
      name: outputName(input.name, 'rotated'),
      contentType: 'application/pdf',
      facts: { pages: pageCount },
    };
  },
});
