// Engine tier: form-fields and fill-form on a corpus AcroForm with real qpdf; the filled values are
// read back by form-fields, by pdftotext on a flattened result and as pixels in each field's box.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isQuireError } from '../../src/errors/quire-error.js';
import { fillFormTool } from '../../src/tools/fill-form.js';
import { formFieldsTool } from '../../src/tools/form-fields.js';
import type { AnyToolDefinition } from '../../src/tools/lib/types.js';
import { checkPasses } from '../support/pdf-checks.js';
import { corpus, runTool } from '../support/tool-context.js';

const FORM = 'pdfbox__AcroFormsBasicFields.pdf';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function run(tool: AnyToolDefinition, file: string, options: unknown) {
  const result = await runTool(tool, [file], options);
  cleanups.push(result.cleanup);
  return result;
}

async function failure(tool: AnyToolDefinition, file: string, options: unknown) {
  try {
    await run(tool, file, options);
  } catch (err) {
    return isQuireError(err) ? `${err.code}: ${err.detail}` : String(err);
  }
  return 'succeeded';
}

interface Field {
  name: string;
  type: string;
  value: string | string[] | null;
  options?: string[];
  widgets: Array<{ page: number; rect: number[] | null }>;
}

async function fields(file: string): Promise<Map<string, Field>> {
  const { output } = await run(formFieldsTool, file, {});
  const report = JSON.parse(await readFile(output.path, 'utf8')) as { fields: Field[] };
  return new Map(report.fields.map((f) => [f.name, f]));
}

/** Page 1 rendered at 72 dpi in grey (1 px per point), as rows of bytes. */
function render(file: string): { width: number; height: number; pixels: Buffer } {
  const pgm = execFileSync('pdftoppm', ['-r', '72', '-gray', '-f', '1', '-l', '1', file]);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.toString('latin1', 0, 40))!;
  return { width: Number(header[1]), height: Number(header[2]), pixels: pgm.subarray(header[0].length) };
}

/** How many pixels inside `rect` (PDF points, origin bottom left) differ between two renders. */
function changedPixels(a: ReturnType<typeof render>, b: ReturnType<typeof render>, rect: number[]) {
  const [x1, y1, x2, y2] = rect.map(Math.round) as [number, number, number, number];
  let changed = 0;
  for (let row = a.height - y2; row < a.height - y1; row++) {
    for (let col = x1; col < x2; col++) {
      if (a.pixels[row * a.width + col] !== b.pixels[row * b.width + col]) changed++;
    }
  }
  return changed;
}

describe('form-fields', () => {
  it('lists every field of a corpus AcroForm with its type, value, options, page and box', async () => {
    const listed = await fields(FORM);
    expect(listed.size).toBe(18);
    expect(listed.get('TextField-DefaultValue')).toMatchObject({ type: 'text', value: 'DefaultValue' });
    expect(listed.get('Checkbox')).toMatchObject({ type: 'checkbox', value: 'Off', options: ['Yes'] });
    expect(listed.get('RadioButtonGroup')?.type).toBe('radio');
    expect(listed.get('RadioButtonGroup')?.widgets).toHaveLength(2);
    expect(listed.get('ComboBox-DefaultValue')).toMatchObject({
      type: 'choice',
      value: 'Opt01',
      options: ['Opt01', 'Opt02', 'Opt03'],
    });
    expect(listed.get('Signature')?.type).toBe('signature');
    expect(listed.get('PushButton')?.type).toBe('button');
    expect(listed.get('TextField')?.widgets).toEqual([{ page: 1, rect: [48, 722, 144, 744] }]);
  });
});

describe('fill-form', () => {
  it('puts every value into the fields, the text layer and the rendered field boxes', async () => {
    const before = await fields(FORM);
    const radio = before.get('RadioButtonGroup')!.options!.at(-1)!;
    const group = before.get('CheckboxGroup')!.options![1]!;
    const values = {
      TextField: 'Quire filled this',
      'TextField-DefaultValue': 'Second value 42',
      Checkbox: true,
      'Checkbox-DefaultValue': false,
      RadioButtonGroup: radio,
      CheckboxGroup: group,
      'ComboBox-DefaultValue': 'Opt03',
    };
    const filled = await run(fillFormTool, FORM, { values });
    expect(await checkPasses(filled.output.path)).toBe(true);
    const after = await fields(filled.output.path);
    expect(after.get('TextField')?.value).toBe('Quire filled this');
    expect(after.get('TextField-DefaultValue')?.value).toBe('Second value 42');
    expect(after.get('Checkbox')?.value).toBe('Yes');
    expect(after.get('Checkbox-DefaultValue')?.value).toBe('Off');
    expect(after.get('RadioButtonGroup')?.value).toBe(radio);
    expect(after.get('CheckboxGroup')?.value).toBe(group);
    expect(after.get('ComboBox-DefaultValue')?.value).toBe('Opt03');

    const flat = await run(fillFormTool, FORM, { values, flatten: true });
    const text = execFileSync('pdftotext', [flat.output.path, '-'], { encoding: 'utf8' });
    for (const t of ['Quire filled this', 'Second value 42', 'Opt03']) expect(text).toContain(t);

    const unfilled = render(corpus(FORM));
    const rendered = render(flat.output.path);
    for (const name of Object.keys(values)) {
      const boxes = before.get(name)!.widgets.map((w) => changedPixels(unfilled, rendered, w.rect!));
      expect(Math.max(...boxes), name).toBeGreaterThan(10);
    }
  });

  it('fails form_fields_invalid naming every unknown field and misfit value', async () => {
    const message = await failure(fillFormTool, FORM, {
      values: { Nope: 'x', 'ComboBox-DefaultValue': 'Opt99', Checkbox: 'Maybe', Signature: 'me' },
    });
    expect(message).toMatch(/^form_fields_invalid: /);
    for (const name of ['Nope', 'ComboBox-DefaultValue', 'Checkbox', 'Signature']) {
      expect(message).toContain(`"${name}"`);
    }
  });

  it('refuses an XFA-only form with xfa_not_supported', async () => {
    const xfa = corpus('pdflib__with_xfa_fields.pdf');
    const root = execFileSync('qpdf', ['--show-object=trailer', xfa], { encoding: 'utf8' });
    const rootRef = /\/Root (\d+ \d+ R)/.exec(root)![1]!;
    const json = JSON.parse(
      execFileSync('qpdf', ['--json=2', '--json-key=qpdf', `--json-object=${rootRef}`, xfa], {
        encoding: 'utf8',
      }),
    );
    const value = { ...json.qpdf[1][`obj:${rootRef}`].value, '/NeedsRendering': true };
    const { ctx, output } = await run(formFieldsTool, xfa, {});
    const update = path.join(ctx.workDir, 'needs-rendering.json');
    await writeFile(update, JSON.stringify({ qpdf: [json.qpdf[0], { [`obj:${rootRef}`]: { value } }] }));
    const xfaOnly = path.join(ctx.workDir, 'xfa-only.pdf');
    execFileSync('qpdf', [xfa, `--update-from-json=${update}`, xfaOnly]);
    expect(JSON.parse(await readFile(output.path, 'utf8')).xfa_only).toBe(false);
    expect(await failure(fillFormTool, xfaOnly, { values: { a: 'b' } })).toMatch(/^xfa_not_supported/);
  });
});
