// Engine tier: ocr and pdfa on inputs made in the test, with the real ocrmypdf, Tesseract and
// Ghostscript in a network namespace; PDF/A results judged by veraPDF, not by us.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeEngines, createEngines } from '../../src/engines/index.js';
import { isAbortedError } from '../../src/process/runner.js';
import { openAndRun } from '../../src/tools/framework/inputs.js';
import type { AnyToolDefinition, InputType } from '../../src/tools/framework/types.js';
import { ocrTool } from '../../src/tools/ocr.js';
import { pdfaTool } from '../../src/tools/pdfa.js';
import { concatPdfs, imagePdf, scanPng, textPdf } from '../support/heavy-fixtures.js';
import { pageText } from '../support/pdf.js';
import { eventually } from '../support/process-state.js';
import { corpus, makeToolContext } from '../support/tool-context.js';
import { ensureVerapdf, verapdf } from '../support/verapdf.js';

const engines = createEngines({
  timeoutMs: 120_000,
  memoryBytes: 2 * 1024 ** 3,
  heavy: {
    isolateNetwork: true,
    workRoot: '/tmp/quire-pools-test',
    ocrTimeoutMs: 120_000,
    office: { size: 1, recycleAfter: 5, timeoutMs: 60_000 },
    browser: { size: 1, recycleAfter: 5, timeoutMs: 60_000 },
    validator: { size: 1, recycleAfter: 5, timeoutMs: 120_000 },
  },
});
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await closeEngines(engines);
  await Promise.all(cleanups.map((c) => c()));
});

async function runWith(tool: AnyToolDefinition, file: string, options: unknown, type?: InputType) {
  const test = await makeToolContext({ tool, files: [file], options });
  test.ctx.engines = engines;
  if (type) test.ctx.inputs[0]!.contentType = type;
  cleanups.push(test.cleanup);
  return { ...test, output: await openAndRun(tool, test.ctx) };
}

const words = ['QUIRE OCR CHECK', 'Harbour lighthouse 1987'];
let textFile: string;
let scanFile: string;
let scanImage: string;

beforeAll(() => {
  textFile = textPdf('text.pdf', words);
  scanImage = scanPng(textFile, 'scan.png');
  scanFile = imagePdf(textFile, 'scan.pdf');
  ensureVerapdf();
}, 300_000);

/** Lines of `ps` for tesseract or gs processes working inside `dir`. */
function enginesIn(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => /\b(tesseract|gs)\b/.test(l) && l.includes(dir));
}

describe('ocr', () => {
  it('finds the words of a scanned page and reports progress per page', async () => {
    expect(pageText(scanFile).trim()).toBe('');
    const { output, emitted } = await runWith(ocrTool, scanFile, { languages: ['eng'] });
    const text = pageText(output.path).replace(/\s+/g, ' ');
    expect(text).toContain('QUIRE OCR CHECK');
    expect(text).toMatch(/Harbour lighthouse/);
    expect(emitted.map((p) => p.stage)).toContain('recognise');
  });

  it('reads an image upload directly and can write PDF/A-2b', async () => {
    const { output } = await runWith(ocrTool, scanImage, { output: 'pdfa' }, 'image/png');
    expect(pageText(output.path)).toContain('QUIRE');
    expect((await verapdf(output.path, '2b')).compliant).toBe(true);
  });

  it('skip-text leaves a page that already has text untouched', async () => {
    const mixed = concatPdfs([textFile, scanFile], 'mixed.pdf');
    const before = execFileSync('qpdf', ['--show-object=3', '--filtered-stream-data', textFile]);
    const { output } = await runWith(ocrTool, mixed, { mode: 'skip-text' });
    // Page 1 keeps its own text and gains no image (ocrmypdf would rasterise a page it OCRs).
    expect(pageText(output.path, 1)).toBe(pageText(textFile, 1));
    expect(
      execFileSync('pdfimages', ['-list', '-f', '1', '-l', '1', output.path], { encoding: 'utf8' }).split(
        '\n',
      ).length,
    ).toBeLessThanOrEqual(3);
    expect(pageText(output.path, 2)).toContain('QUIRE');
    expect(before.length).toBeGreaterThan(0);
  });

  it('a canceled OCR job leaves no tesseract or gs process behind', async () => {
    const many = concatPdfs(Array(8).fill(scanFile), 'many.pdf');
    const test = await makeToolContext({
      tool: ocrTool,
      files: [many],
      options: { mode: 'force' as const, deskew: true },
    });
    test.ctx.engines = engines;
    const running = openAndRun(ocrTool, test.ctx);
    running.catch(() => {});
    // The sample that saw them is the one asserted: ocrmypdf's gs and tesseract runs come one after
    // another, so a second `ps` can fall between two of them (it did once in a full suite).
    const deadline = Date.now() + 60_000;
    let seen = enginesIn(test.ctx.workDir);
    while (seen.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      seen = enginesIn(test.ctx.workDir);
    }
    expect(seen.length).toBeGreaterThan(0);
    test.abort.abort(new Error('canceled by the test'));
    const error = await running.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAbortedError(error)).toBe(true);
    // The whole group is SIGKILLed; a grandchild (ocrmypdf's gs) can take a moment to be gone.
    await eventually(() => enginesIn(test.ctx.workDir).length === 0);
    expect(enginesIn(test.ctx.workDir)).toEqual([]);
    await test.cleanup();
  });
});

describe('pdfa', () => {
  for (const conformance of ['1b', '2b', '3b'] as const) {
    it(`writes PDF/A-${conformance} that declares itself in XMP and passes veraPDF`, async () => {
      const { output } = await runWith(pdfaTool, corpus('pypdf-samples__pdflatex-4-pages.pdf'), {
        conformance,
      });
      const bytes = (await readFile(output.path)).toString('latin1');
      expect(bytes).toMatch(new RegExp(`pdfaid:part(>|=")${conformance[0]}`));
      const verdict = await verapdf(output.path, conformance);
      expect(verdict.failedRules).toEqual([]);
      expect(verdict.compliant).toBe(true);
      // The tool's own verdict on its output, in its facts, is veraPDF's.
      expect(output.facts?.validation).toEqual({
        validator: 'veraPDF 1.28.2',
        profile: `pdfa-${conformance}`,
        compliant: true,
        failed_rules: [],
      });
    });
  }
});
