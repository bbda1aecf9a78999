// fill-form: sets AcroForm field values from {name: value}, regenerates their appearances so every
// viewer shows them (qpdf --generate-appearances), and can flatten the result.
import { writeFile } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { engineCall, engineCallWithProgress } from '../framework/engine-call.js';
import { onlyPdf } from '../framework/inputs.js';
import { outputName, workFile } from '../framework/output-name.js';
import { defineTool } from '../framework/types.js';
import { readForm, refuseXfaOnly } from '../shared/form-model.js';
import { fillUpdate } from './form-fill.js';

/** Far above any real form; bounds the update we build. */
const MAX_VALUES = 2_000;
const MAX_VALUE_LENGTH = 10_000;

const options = Type.Object(
  {
    values: Type.Record(
      Type.String({ minLength: 1, maxLength: 1_000 }),
      Type.Union([Type.String({ maxLength: MAX_VALUE_LENGTH }), Type.Boolean()]),
      {
        minProperties: 1,
        maxProperties: MAX_VALUES,
        description:
          'Field full name (as `form-fields` lists it) → value. Text: a string. Checkbox: `true`/`false`, or one of its values. Radio group and choice: one of its `options` (an editable combo box takes any string). `false` or `"Off"` clears a checkbox or radio group.',
      },
    ),
    flatten: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Draw the filled fields into the page content, so they can no longer be edited.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { values: { TextField: 'Ada Lovelace', Checkbox: true } },
      { values: { TextField: 'Ada' }, flatten: true },
    ],
  },
);

export const fillFormTool = defineTool({
  name: 'fill-form',
  title: 'Fill form',
  group: 'Forms, redaction and Office',
  keywords: ['fill in', 'acroform', 'form'],
  description:
    'Fills AcroForm fields from a JSON object of field names and values, regenerates their appearances so every viewer shows them, and optionally flattens the form.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf', holds: ['acroform'] },
  options,
  // What people type into forms (names, addresses, account numbers): shown and kept like a password.
  secretOptions: ['values'],
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { inspect: 20, read: 30, fill: 50 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    ctx.progress.step('read');
    // qpdf 11.3 silently drops JSON updates of objects that sit in object streams it has not read
    // yet (the corpus pdfbox form's widgets kept their old /V), so the form is unpacked first.
    const unpacked = workFile(ctx.workDir, 'unpacked');
    await ctx.engines.qpdf.rewrite(input.path, unpacked, engineCall(ctx), { objectStreams: 'disable' });
    const form = await readForm(ctx.engines.qpdf, unpacked, engineCall(ctx));
    refuseXfaOnly(form);
    const update = workFile(ctx.workDir, 'fill', 'json');
    await writeFile(update, JSON.stringify(fillUpdate(form, ctx.options.values)), { mode: 0o600 });

    ctx.progress.step('fill');
    const output = workFile(ctx.workDir, 'filled');
    const flatten = ctx.options.flatten ?? false;
    if (flatten) {
      await ctx.engines.qpdf.flattenAnnotations(
        unpacked,
        output,
        { generateAppearances: true, updateFile: update },
        engineCallWithProgress(ctx),
      );
    } else {
      await ctx.engines.qpdf.updateFromJson(unpacked, update, output, engineCallWithProgress(ctx), {
        generateAppearances: true,
      });
    }
    return {
      path: output,
      name: outputName(input.name, 'filled'),
      contentType: 'application/pdf',
      facts: { pages: pageCount, filled: Object.keys(ctx.options.values).length, flattened: flatten },
    };
  },
});
