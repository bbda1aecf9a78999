// flatten: draws form fields and/or annotations into the page content (qpdf
// --flatten-annotations), so they can no longer be edited and look the same in every reader.
import { writeFile } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { engineCall, engineCallWithProgress } from '../framework/engine-call.js';
import { onlyPdf } from '../framework/inputs.js';
import { outputName, workFile } from '../framework/output-name.js';
import { StringEnum } from '../framework/schema.js';
import type { ToolContext } from '../framework/types.js';
import { defineTool } from '../framework/types.js';
import { readAnnotationObjects } from './annotation-objects.js';
import { annotationCount, type QpdfJsonFile, restorePlan, stashPlan } from './flatten-plan.js';

const options = Type.Object(
  {
    what: Type.Optional(
      StringEnum(['forms', 'annotations', 'all'], {
        default: 'all',
        description:
          '`forms`: form fields only (the form is removed); `annotations`: comments, stamps, highlights and other non-field annotations only (the form stays fillable); `all`: both.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ what: 'all' }, { what: 'forms' }] },
);

/** Only the catalog, pages and annotations; `annotations` reads each annotation's dictionary too. */
function readJson<O>(ctx: ToolContext<O>, pdf: string, annotations = false): Promise<QpdfJsonFile> {
  return readAnnotationObjects(ctx.engines.qpdf, pdf, engineCall(ctx), annotations);
}

async function writeUpdate<O>(ctx: ToolContext<O>, update: unknown): Promise<string> {
  const file = workFile(ctx.workDir, 'update', 'json');
  await writeFile(file, JSON.stringify(update), { mode: 0o600 });
  return file;
}

export const flattenTool = defineTool({
  name: 'flatten',
  title: 'Flatten forms and annotations',
  group: 'Pages and structure',
  keywords: ['burn in', 'annotations', 'forms'],
  description:
    'Draws form fields and/or annotations into the page content so they can no longer be changed; fields without appearances get them generated first.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { inspect: 15, flatten: 60, restore: 15, count: 10 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    const what = ctx.options.what ?? 'all';
    const before = await readJson(ctx, input.path, what !== 'all');
    const plan = what === 'all' ? undefined : stashPlan(before, what === 'forms' ? 'others' : 'widgets');

    ctx.progress.step('flatten');
    const flattened = workFile(ctx.workDir, 'flattened');
    const updateFile = plan?.update === undefined ? undefined : await writeUpdate(ctx, plan.update);
    await ctx.engines.qpdf.flattenAnnotations(
      input.path,
      flattened,
      // Widgets that rely on /NeedAppearances have nothing to flatten until appearances exist.
      { generateAppearances: what !== 'annotations', ...(updateFile ? { updateFile } : {}) },
      engineCallWithProgress(ctx),
    );

    ctx.progress.step('restore');
    let output = flattened;
    if (updateFile) {
      const restore = restorePlan(await readJson(ctx, flattened));
      if (restore !== undefined) {
        output = workFile(ctx.workDir, 'flattened-restored');
        await ctx.engines.qpdf.updateFromJson(
          flattened,
          await writeUpdate(ctx, restore),
          output,
          engineCall(ctx),
        );
      }
    }

    ctx.progress.step('count');
    const remaining = annotationCount(await readJson(ctx, output));
    return {
      path: output,
      name: outputName(input.name, 'flattened'),
      contentType: 'application/pdf',
      facts: {
        pages: pageCount,
        what,
        annotations_before: annotationCount(before),
        annotations_after: remaining,
      },
    };
  },
});
