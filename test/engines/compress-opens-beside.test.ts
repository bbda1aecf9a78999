// Engine tier: compress opened beside its image pass (inputs.early, openBeside) ends every hostile, damaged
// and refused input as the runner's qpdf opening before it does — the same code, or a valid file of
// the same pages — and a small image-heavy file takes its engine runs in one round.
import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuireError } from '../../src/errors/quire-error.js';
import { compressTool } from '../../src/tools/compress/tool.js';
import type { ToolLimits } from '../../src/tools/framework/types.js';
import { hostileVariants, writeVariant } from '../support/hostile-pdf.js';
import { checkPasses, pageCount } from '../support/pdf-checks.js';
import {
  corpus,
  makeToolContext,
  openAndRunCanceledAtFirstQpdfRun,
  openAndRunCountingQpdf,
  runTool,
} from '../support/tool-context.js';

/** The same tool opened the way every other PDF tool is: the runner's qpdf opening first. */
const compressOpenedFirst = { ...compressTool, inputs: { ...compressTool.inputs, early: false } };

async function outcome(
  tool: typeof compressTool,
  file: string,
  options: Record<string, unknown> = {},
  limits: Partial<ToolLimits> = {},
): Promise<string> {
  try {
    const run = await runTool(tool, [file], options, limits);
    const pages = await pageCount(run.output.path);
    const valid = await checkPasses(run.output.path);
    const notLarger = statSync(run.output.path).size <= statSync(file).size;
    await run.cleanup();
    return `succeeded, ${pages} pages, check ${valid}, not larger ${notLarger}`;
  } catch (err) {
    return err instanceof QuireError ? err.code : `crash: ${String(err)}`;
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'quire-compress-beside-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('compress opened beside its image pass', () => {
  it.each(Object.keys(hostileVariants))('hostile %s ends as with the opening first', async (variant) => {
    const file = await writeVariant(dir, `${variant}.pdf`, hostileVariants[variant]!());
    expect(await outcome(compressTool, file)).toBe(await outcome(compressOpenedFirst, file));
  });

  it.each([
    ['damaged, read as it is', 'pdfjs__scan-bad.pdf'],
    ['damaged, repairable', 'qpdf__bad-xref-entry.pdf'],
    ['corrupt', 'pdflib__missing_xref_trailer_dict.pdf'],
    ['encrypted', 'qpdf__c-r4.pdf'],
    ['owner-only encrypted', 'qpdf__enc-R3-V2-O-master.pdf'],
    ['wrong /Count', 'pdfium__document_aactions.pdf'],
    ['image-heavy', 'ocrmypdf__poster.pdf'],
  ])('corpus %s input ends as with the opening first', async (_kind, name) => {
    const file = corpus(name);
    expect(await outcome(compressTool, file)).toBe(await outcome(compressOpenedFirst, file));
  });

  it('a damaged file whose JPEG is already small ends as with the opening first', async () => {
    // The poster without its startxref: qpdf rebuilds the xref; no image gains, and the lossless
    // rewrite (a few bytes larger than this upload) does not beat it, so the upload comes back.
    const poster = await readFile(corpus('ocrmypdf__poster.pdf'), 'latin1');
    const file = path.join(dir, 'poster-no-startxref.pdf');
    await writeFile(file, poster.replace(/startxref\s+\d+\s+%%EOF\s*$/, '%%EOF\n'), 'latin1');
    const beside = await outcome(compressTool, file);
    expect(beside).toMatch(/^succeeded, 1 pages, .*not larger true$/);
    expect(beside).toBe(await outcome(compressOpenedFirst, file));
  });

  it('the page limit ends as with the opening first', async () => {
    const file = corpus('pypdf-samples__pdflatex-4-pages.pdf');
    for (const maxPages of [3, 4]) {
      const beside = await outcome(compressTool, file, {}, { maxPages });
      expect(beside).toBe(await outcome(compressOpenedFirst, file, {}, { maxPages }));
    }
    expect(await outcome(compressTool, file, {}, { maxPages: 3 })).toBe('limit_pages_exceeded');
  });
});

describe('qpdf runs of compress on small image-heavy files', () => {
  async function compressCounting(file: string) {
    const test = await makeToolContext({ tool: compressTool, files: [file], options: {} });
    try {
      const { output, qpdfRuns } = await openAndRunCountingQpdf(compressTool, test.ctx);
      return { output, qpdfRuns, pages: await pageCount(output.path), valid: await checkPasses(output.path) };
    } finally {
      await test.cleanup();
    }
  }

  it('a JPEG already small (poster): the opening with the dump, and the lossless rewrite, beside the list', async () => {
    const run = await compressCounting(corpus('ocrmypdf__poster.pdf'));
    expect(run).toMatchObject({ qpdfRuns: 2, pages: 1, valid: true });
    expect(run.output.facts).toMatchObject({ method: 'lossless', lossy_applied: false });
  });

  it('a damaged scan a plain rewrite repairs (scan-bad) is read as uploaded, its output counted', async () => {
    const file = corpus('pdfjs__scan-bad.pdf');
    const run = await compressCounting(file);
    // Beside the list: the opening, which dumps the streams too; then the image swap and its page
    // count (qpdf warns about the input), held to the page qpdf walked. The lossless rewrite ahead
    // runs only if it started before the opening found the damage, and is never counted (unused).
    expect(run).toMatchObject({ pages: 1, valid: true });
    expect(run.qpdfRuns).toBeGreaterThanOrEqual(3);
    expect(run.qpdfRuns).toBeLessThanOrEqual(4);
    expect(run.output.facts).toMatchObject({
      method: 'lossy',
      lossy_engine: 'images',
      input_size: statSync(file).size,
    });
  });
});

describe("qpdf's opening read from the stream dump", () => {
  it.each([
    'ocrmypdf__poster.pdf',
    'pdfjs__scan-bad.pdf',
    'qpdf__bad-xref-entry.pdf',
    'pdfium__document_aactions.pdf', // /Count 3 over one page
    'pypdf-samples__pdflatex-4-pages.pdf', // object streams
    'pdfbox__with_outline.pdf',
  ])('%s opens as qpdf --show-npages --show-pages finds it', async (name) => {
    const test = await makeToolContext({ tool: compressTool, files: [corpus(name)], options: {} });
    try {
      const { engines, workDir } = test.ctx;
      const input = test.ctx.inputs[0]!.path;
      const dumped = await engines.qpdf.openWithStreams(input, path.join(workDir, 'stream'), { workDir });
      expect(dumped.opening).toEqual(await engines.qpdf.open(input, { workDir }));
      expect(dumped.streams.size).toBeGreaterThan(0);
    } finally {
      await test.cleanup();
    }
  });
});

describe('compress opened beside its image pass and canceled', () => {
  it('stops with an AbortedError, without falling back to the opening', async () => {
    const test = await makeToolContext({
      tool: compressTool,
      files: [corpus('ocrmypdf__poster.pdf')],
      options: {},
    });
    // Canceled when the first qpdf run of the first round ends, the others still running.
    const { running, qpdfRuns } = openAndRunCanceledAtFirstQpdfRun(compressTool, test);
    try {
      await expect(running).rejects.toMatchObject({ name: 'AbortedError' });
      // The first round's two qpdf runs (the opening with the dump, the rewrite); no opening pass.
      expect(qpdfRuns()).toBeLessThanOrEqual(2);
    } finally {
      await test.cleanup();
    }
  });
});
