// Engine tier: pages, linearize, repair, flatten, metadata and info on real corpus files with real
// qpdf/Ghostscript/poppler; outputs judged by qpdf itself (check, linearization, JSON) and text.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { isQuireError } from '../../src/errors/quire-error.js';
import { flattenTool } from '../../src/tools/flatten/tool.js';
import { infoTool } from '../../src/tools/info/tool.js';
import { linearizeTool } from '../../src/tools/linearize.js';
import { metadataTool } from '../../src/tools/metadata.js';
import { pagesTool } from '../../src/tools/pages.js';
import { repairTool } from '../../src/tools/repair.js';
import { readManifest } from '../support/corpus.js';
import { checkPasses, pageCount, pageText } from '../support/pdf-checks.js';
import { corpus, type runTool } from '../support/tool-context.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const runs = useToolRuns();

const { run } = runs;

async function failure(tool: Parameters<typeof runTool>[0], file: string, options: unknown) {
  try {
    await run(tool, [file], options);
  } catch (err) {
    return isQuireError(err) ? err.code : String(err);
  }
  return 'succeeded';
}

/** Annotation subtypes per page and the AcroForm field count, read with `qpdf --json`. */
function annotations(file: string): { subtypes: string[]; fields: number } {
  const json = JSON.parse(
    execFileSync('qpdf', ['--json=2', '--json-key=qpdf', '--json-key=acroform', file], { encoding: 'utf8' }),
  );
  const objects = json.qpdf[1] as Record<string, { value?: Record<string, unknown> }>;
  const deref = (v: unknown) => (typeof v === 'string' && / R$/.test(v) ? objects[`obj:${v}`]?.value : v);
  const subtypes: string[] = [];
  for (const object of Object.values(objects)) {
    if (object.value?.['/Type'] !== '/Page') continue;
    const annots = deref(object.value['/Annots']);
    for (const a of Array.isArray(annots) ? annots : []) {
      subtypes.push(String((deref(a) as Record<string, unknown>)['/Subtype']));
    }
  }
  return { subtypes, fields: json.acroform.fields.length };
}

const TRACEMONKEY = 'pdfjs__tracemonkey.pdf'; // 14 pages
const LATEX4 = 'pypdf-samples__pdflatex-4-pages.pdf'; // 4 pages

describe('pages', () => {
  it('keeps pages in the order given, repeats included', async () => {
    const { output } = await run(pagesTool, [LATEX4], { keep: '3,1,1,z' });
    expect(await pageCount(output.path)).toBe(4);
    const texts = await Promise.all([1, 2, 3, 4].map((p) => pageText(output.path, p)));
    const source = await Promise.all([3, 1, 1, 4].map((p) => pageText(corpus(LATEX4), p)));
    expect(texts).toEqual(source);
    expect(output.facts).toEqual({ pages: 4, input_pages: 4 });
  });

  it('removes the selected pages and keeps the rest in order', async () => {
    const { output } = await run(pagesTool, [TRACEMONKEY], { remove: '2-13' });
    expect(await pageCount(output.path)).toBe(2);
    expect(await pageText(output.path, 2)).toBe(await pageText(corpus(TRACEMONKEY), 14));
    expect(await checkPasses(output.path)).toBe(true);
  });

  it('fails page_range_invalid for a page outside the document or removing every page', async () => {
    expect(await failure(pagesTool, LATEX4, { keep: '5' })).toBe('page_range_invalid');
    expect(await failure(pagesTool, LATEX4, { remove: '1-z' })).toBe('page_range_invalid');
  });
});

describe('linearize', () => {
  it('writes a file qpdf --check-linearization accepts, reporting write progress', async () => {
    const { output, emitted } = await run(linearizeTool, [TRACEMONKEY], {});
    const check = execFileSync('qpdf', ['--check-linearization', output.path], { encoding: 'utf8' });
    expect(check).toContain('no linearization errors');
    expect(await pageCount(output.path)).toBe(14);
    // qpdf's write progress took the linearize step (10–90 %) from its start to its end. qpdf's
    // stdout is a pipe, so its lines may all arrive at the end of the run: their number says nothing.
    const linearizing = emitted.filter((p) => p.stage === 'linearize').map((p) => p.percent);
    expect(linearizing).toEqual(expect.arrayContaining([10, 90]));
  });
});

describe('repair', () => {
  const damaged = readManifest().filter((row) => row.expected === 'repairable');

  it.each(damaged.map((row) => row.file))('turns %s into a file that passes qpdf --check', async (file) => {
    const { output } = await run(repairTool, [file], {});
    expect(await checkPasses(output.path)).toBe(true);
    expect(output.facts).toMatchObject({ was_damaged: true, clean: true });
    const expected = readManifest().find((r) => r.file === file)!.pages;
    if (expected !== '?') expect(await pageCount(output.path)).toBe(Number(expected));
  });

  it.each(
    readManifest()
      .filter((row) => row.expected === 'corrupt' && row.file.endsWith('.pdf'))
      .map((row) => row.file),
  )('fails %s with pdf_corrupt', async (file) => {
    expect(await failure(repairTool, file, {})).toBe('pdf_corrupt');
  });

  it('leaves an undamaged file clean and says it was not damaged', async () => {
    const { output } = await run(repairTool, [LATEX4], {});
    expect(output.facts).toMatchObject({ was_damaged: false, method: 'qpdf', clean: true });
  });
});

describe('flatten', () => {
  const FORM = 'pypdf-samples__libreoffice-form.pdf';
  const MIXED = 'pdflib__with_annots.pdf'; // a form field and non-field annotations

  it('all: removes every form field and every annotation that has an appearance', async () => {
    expect(annotations(corpus(FORM)).fields).toBeGreaterThan(0);
    const { output } = await run(flattenTool, [FORM], { what: 'all' });
    const after = annotations(output.path);
    expect(after.fields).toBe(0);
    expect(after.subtypes).not.toContain('/Widget');
    expect(await checkPasses(output.path)).toBe(true);
  });

  it('forms: flattens the fields and keeps the other annotations', async () => {
    const before = annotations(corpus(MIXED));
    const others = before.subtypes.filter((s) => s !== '/Widget');
    expect(before.fields).toBeGreaterThan(0);
    expect(others.length).toBeGreaterThan(0);
    const { output } = await run(flattenTool, [MIXED], { what: 'forms' });
    const after = annotations(output.path);
    expect(after.fields).toBe(0);
    expect(after.subtypes.sort()).toEqual(others.sort());
  });

  it('annotations: flattens the non-field annotations and keeps the form fillable', async () => {
    const before = annotations(corpus(MIXED));
    const { output } = await run(flattenTool, [MIXED], { what: 'annotations' });
    const after = annotations(output.path);
    expect(after.fields).toBe(before.fields);
    expect(after.subtypes.filter((s) => s !== '/Widget' && s !== '/Link' && s !== '/Popup')).toEqual([]);
    expect(after.subtypes.filter((s) => s === '/Widget').length).toBe(
      before.subtypes.filter((s) => s === '/Widget').length,
    );
    expect(await checkPasses(output.path)).toBe(true);
  });
});

describe('metadata and info', () => {
  async function info(file: string) {
    const { output } = await run(infoTool, [file], {});
    return JSON.parse(await readFile(output.path, 'utf8'));
  }

  it('sets fields (Unicode included), clears with "" and keeps the rest; info reads them back', async () => {
    const original = await info(corpus(LATEX4));
    const { output } = await run(metadataTool, [LATEX4], {
      title: 'Rapport annuel — 2026',
      author: 'Zoë 山田',
      keywords: 'a, b',
      producer: '',
    });
    const report = await info(output.path);
    expect(report.metadata).toMatchObject({
      title: 'Rapport annuel — 2026',
      author: 'Zoë 山田',
      keywords: 'a, b',
      producer: null,
      creator: original.metadata.creator,
    });
    expect(await checkPasses(output.path)).toBe(true);
  });

  it('adds an information dictionary to a file that has none', async () => {
    const empty = corpus('pdf20ex__Simple_PDF_2.0_file.pdf');
    const { output } = await run(metadataTool, [empty], { title: 'New' });
    expect((await info(output.path)).metadata.title).toBe('New');
  });

  it('info counts form fields and ignores an empty /AcroForm left behind by a producer', async () => {
    const form = await info(corpus('pypdf-samples__libreoffice-form.pdf'));
    expect(form).toMatchObject({ has_forms: true, form_type: 'AcroForm', form_field_count: 9 });
    const emptyForm = await info(corpus('pdfbox__AnnotationTypes.pdf'));
    expect(emptyForm).toMatchObject({ has_forms: false, form_type: null, form_field_count: 0 });
    const { output } = await run(flattenTool, ['pypdf-samples__libreoffice-form.pdf'], {});
    expect(await info(output.path)).toMatchObject({ has_forms: false, form_field_count: 0 });
  });

  it('info reports linearization as qpdf checks it', async () => {
    const { output } = await run(linearizeTool, [LATEX4], {});
    expect((await info(output.path)).linearized).toBe(true);
    expect((await info(corpus(LATEX4))).linearized).toBe(false);
    expect(spawnSync('qpdf', ['--check-linearization', output.path]).status).toBe(0);
  });
});
