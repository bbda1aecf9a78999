// Engine tier: form-fields and fill-form on a corpus AcroForm with real qpdf (values read back by
// form-fields, pdftotext on a flattened result and pixels in each field's box); redact with real
// PyMuPDF, judged by pdftotext, a raw search of every uncompressed stream, metadata and pdfimages.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isQuireError } from '../../src/errors/quire-error.js';
import { requireSandbox } from '../../src/process/sandbox.js';
import { fillFormTool } from '../../src/tools/fill-form/tool.js';
import { formFieldsTool } from '../../src/tools/form-fields.js';
import type { AnyToolDefinition } from '../../src/tools/framework/types.js';
import { metadataTool } from '../../src/tools/metadata.js';
import { redactTool } from '../../src/tools/redact.js';
import { checkPasses } from '../support/pdf-checks.js';
import { corpus } from '../support/tool-context.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const FORM = 'pdfbox__AcroFormsBasicFields.pdf';

const runs = useToolRuns();

const run = (tool: AnyToolDefinition, file: string, options: unknown) => runs.run(tool, [file], options);

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

  it('refuses a form of more than 5,000 fields with limit_form_fields_exceeded, not engine_failed', async () => {
    const { ctx } = await run(formFieldsTool, corpus(FORM), {});
    const count = 5_001;
    // Objects 1–3: catalog, pages, page; from 4: one text field (its own widget) per object.
    const objects = [
      `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${Array.from({ length: count }, (_, i) => `${i + 4} 0 R`).join(' ')}] >> >>`,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [${Array.from({ length: count }, (_, i) => `${i + 4} 0 R`).join(' ')}] >>`,
      ...Array.from(
        { length: count },
        (_, i) => `<< /Type /Annot /Subtype /Widget /FT /Tx /T (f${i}) /Rect [0 0 10 10] /P 3 0 R >>`,
      ),
    ];
    const raw = `%PDF-1.7\n${objects.map((o, i) => `${i + 1} 0 obj ${o} endobj`).join('\n')}\ntrailer << /Root 1 0 R /Size ${objects.length + 1} >>\n%%EOF\n`;
    const broken = path.join(ctx.workDir, 'many-fields-raw.pdf');
    const many = path.join(ctx.workDir, 'many-fields.pdf');
    await writeFile(broken, raw);
    try {
      execFileSync('qpdf', [broken, many], { stdio: 'ignore' });
    } catch {
      // exit 3: warnings about the rebuilt xref; the output is fine.
    }
    expect(await failure(formFieldsTool, many, {})).toBe(
      'limit_form_fields_exceeded: The form has 5001 field widgets; at most 5000 are read.',
    );
    expect(await failure(fillFormTool, many, { values: { f0: 'x' } })).toMatch(/^limit_form_fields_exceeded/);
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

const WORD = 'TraceMonkey';
const PAPER = 'pdfjs__tracemonkey.pdf';

const text = (file: string, page?: number) =>
  execFileSync('pdftotext', [...(page ? ['-f', String(page), '-l', String(page)] : []), file, '-'], {
    encoding: 'utf8',
  });
const words = (t: string) => t.split(/\s+/).filter((w) => /^[a-z]{4,}$/i.test(w));

/** Every stream uncompressed and every object written out plainly, as bytes to search. */
function rawBytes(file: string, dir: string): string {
  const qdf = path.join(dir, `${path.basename(file)}.qdf.pdf`);
  execFileSync('qpdf', ['--qdf', '--object-streams=disable', file, qdf]);
  return readFileSync(qdf).toString('latin1');
}

/** The 800x981 RGB scan of ocrmypdf__c02-22.pdf, as pdfimages writes it (PPM). */
function scanPixels(file: string, dir: string): Buffer {
  const prefix = path.join(dir, `img-${path.basename(file)}`);
  execFileSync('pdfimages', [file, prefix]);
  const ppm = readFileSync(`${prefix}-000.ppm`);
  const header = /^P6\s+800\s+981\s+255\s/.exec(ppm.toString('latin1', 0, 30))!;
  return ppm.subarray(header[0].length);
}

describe('redact', () => {
  it('leaves no trace of a word found on many pages, in text, streams or metadata, and keeps the rest', async () => {
    const titled = await run(metadataTool, PAPER, { title: `${WORD} notes`, subject: `About ${WORD}` });
    const input = titled.output.path;
    const pagesWithWord = [...Array(14).keys()]
      .map((i) => i + 1)
      .filter((p) => text(input, p).includes(WORD));
    expect(pagesWithWord.length).toBeGreaterThanOrEqual(3);
    expect(rawBytes(input, titled.ctx.workDir)).toContain(WORD);

    const { output, ctx } = await run(redactTool, input, { texts: [WORD] });
    expect(await checkPasses(output.path)).toBe(true);
    expect(text(output.path)).not.toMatch(/tracemonkey/i);
    expect(rawBytes(output.path, ctx.workDir)).not.toMatch(/tracemonkey/i);
    const info = execFileSync('pdfinfo', [output.path], { encoding: 'utf8' });
    const xmp = execFileSync('pdfinfo', ['-meta', output.path], { encoding: 'utf8' });
    expect(`${info}${xmp}`).not.toMatch(/tracemonkey/i);
    expect(info).toMatch(/^Title:\s+notes$/m);
    expect(output.facts).toMatchObject({ rasterized_pages: [], metadata_entries: 2 });
    expect(output.facts?.text_matches).toBeGreaterThanOrEqual(40);
    for (const page of pagesWithWord) {
      const kept = words(text(input, page)).filter((w) => !/tracemonkey/i.test(w));
      const after = new Set(words(text(output.path, page)));
      const survived = kept.filter((w) => after.has(w)).length / kept.length;
      expect(survived, `page ${page}`).toBeGreaterThan(0.97);
    }
    expect(JSON.stringify(output.facts)).not.toContain(WORD);
  });

  it('blanks the image pixels under an area and leaves the rest of the image, run by the sandbox user', async () => {
    const scan = 'ocrmypdf__c02-22.pdf';
    // The scan fills the 384 x 470.88 pt page: the top half of the page is rows 0–490 of the image.
    const { output, ctx } = await run(redactTool, scan, {
      areas: [{ page: 1, rect: [0, 235.44, 384, 470.88] }],
    });
    expect(output.facts).toMatchObject({ areas: 1, images: 1 });
    const before = scanPixels(corpus(scan), ctx.workDir);
    const after = scanPixels(output.path, ctx.workDir);
    const row = 800 * 3;
    const top = new Set<number>();
    let changedTop = 0;
    for (let i = 0; i < 485 * row; i++) {
      top.add(after[i]!);
      if (after[i] !== before[i]) changedTop++;
    }
    expect(top.size).toBe(1);
    expect(changedTop).toBeGreaterThan(100_000);
    let keptBottom = 0;
    for (let i = 496 * row; i < 981 * row; i++) if (Math.abs(after[i]! - before[i]!) < 30) keptBottom++;
    expect(keptBottom / (485 * row)).toBeGreaterThan(0.99);
    // PyMuPDF ran in the document sandbox: it wrote its output as the sandbox's user, into the
    // exchange folder that holds only the input, the driver and the output (the job came on stdin).
    const runs = readdirSync(ctx.workDir).filter((name) => name.startsWith('pymupdf-'));
    expect(runs).toHaveLength(1);
    const exchange = path.join(ctx.workDir, runs[0]!, 'exchange');
    expect(readdirSync(exchange).sort()).toEqual(['input.pdf', 'output.pdf', 'redact']);
    const { uid } = await requireSandbox('test');
    expect(statSync(path.join(exchange, 'output.pdf')).uid).toBe(uid);
    expect(uid === process.getuid?.()).toBe(process.getuid?.() !== 0);
  });

  it('fails redaction_matches_exceeded past max_matches and names no matched text', async () => {
    const message = await failure(redactTool, PAPER, { patterns: ['[a-z]+ing'], max_matches: 50 });
    expect(message).toMatch(
      /^redaction_matches_exceeded: The texts and patterns match \d+ times; max_matches is 50$/,
    );
  });
});
