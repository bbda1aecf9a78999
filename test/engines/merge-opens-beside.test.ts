// Engine tier: merge opened beside its qpdf merge (inputs.early, openBeside) ends every hostile and damaged
// input exactly as the runner's qpdf opening before it does — the same code, or the same pages — since
// whatever that opening would look at more closely sends the job back to it.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuireError } from '../../src/errors/quire-error.js';
import type { ToolLimits } from '../../src/tools/framework/types.js';
import { mergeTool } from '../../src/tools/merge.js';
import { healthy, hostileVariants, writeVariant } from '../support/hostile-pdf.js';
import { pageCount } from '../support/pdf-checks.js';
import {
  corpus,
  makeToolContext,
  openAndRunCanceledAtFirstQpdfRun,
  openAndRunCountingQpdf,
  runTool,
} from '../support/tool-context.js';

/** The same tool opened the way every other PDF tool is: the runner's qpdf opening first. */
const mergeOpenedFirst = { ...mergeTool, inputs: { ...mergeTool.inputs, early: false } };

async function outcome(
  tool: typeof mergeTool,
  files: string[],
  options: Record<string, unknown>,
  limits: Partial<ToolLimits> = {},
): Promise<string> {
  try {
    const run = await runTool(tool, files, options, limits);
    const pages = await pageCount(run.output.path);
    await run.cleanup();
    return `succeeded, ${pages} pages`;
  } catch (err) {
    return err instanceof QuireError ? err.code : `crash: ${String(err)}`;
  }
}

let dir: string;
let companion: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'quire-merge-beside-'));
  companion = await writeVariant(dir, 'healthy.pdf', healthy());
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.each(['keep', 'none'])('bookmarks %s', (bookmarks) => {
  it.each(Object.keys(hostileVariants))('hostile %s ends as with the opening first', async (variant) => {
    const file = await writeVariant(dir, `${variant}.pdf`, hostileVariants[variant]!());
    const files = [companion, file];
    const beside = await outcome(mergeTool, files, { bookmarks });
    expect(beside).toBe(await outcome(mergeOpenedFirst, files, { bookmarks }));
  });

  it.each([
    [
      'repairable',
      ['pdfplumber__issue-848.pdf', 'qpdf__bad-xref-entry.pdf', 'pdfjs__xref_command_missing.pdf'],
    ],
    ['corrupt', ['pypdf-samples__pdflatex-4-pages.pdf', 'pdflib__missing_xref_trailer_dict.pdf']],
    ['encrypted', ['qpdf__c-r4.pdf', 'pdfjs__tracemonkey.pdf']],
    ['owner-only encrypted', ['qpdf__enc-R3-V2-O-master.pdf', 'pdfbox__with_outline.pdf']],
    ['wrong /Count', ['pdfium__document_aactions.pdf', 'pypdf-samples__pdflatex-outline.pdf']],
  ])('corpus %s inputs end as with the opening first', async (_kind, names) => {
    const files = names.map(corpus);
    expect(await outcome(mergeTool, files, { bookmarks })).toBe(
      await outcome(mergeOpenedFirst, files, { bookmarks }),
    );
  });

  it('the page limit ends as with the opening first, whichever file passes it', async () => {
    const files = ['pdfjs__tracemonkey.pdf', 'pypdf-samples__pdflatex-4-pages.pdf'].map(corpus);
    for (const maxPages of [3, 14, 17, 18]) {
      const beside = await outcome(mergeTool, files, { bookmarks }, { maxPages });
      expect(beside).toBe(await outcome(mergeOpenedFirst, files, { bookmarks }, { maxPages }));
    }
  });
});

describe('qpdf runs of a clean merge', () => {
  /** Merges `files` with real engines whose observer counts the qpdf runs (what /metrics counts). */
  async function mergeCounting(files: string[], options: Record<string, unknown>) {
    const test = await makeToolContext({ tool: mergeTool, files, options });
    try {
      const { output, qpdfRuns } = await openAndRunCountingQpdf(mergeTool, test.ctx);
      return { pages: await pageCount(output.path), qpdfRuns };
    } finally {
      await test.cleanup();
    }
  }

  it('a warning that is no repair (cweb: a duplicated key, qpdf --json exits 3) keeps the shortcut', async () => {
    const files = ['pdfbox__cweb.pdf', 'pypdf-samples__pdflatex-outline.pdf', 'pdfjs__tracemonkey.pdf'];
    const merged = await mergeCounting(files, { bookmarks: 'keep' });
    expect(merged).toEqual({ pages: 28 + 4 + 14, qpdfRuns: 1 + 3 });
  });

  it('none: one page count per input beside the merge', async () => {
    const files = ['pypdf-samples__pdflatex-4-pages.pdf', 'pdfjs__tracemonkey.pdf'];
    expect(await mergeCounting(files, { bookmarks: 'none' })).toEqual({ pages: 18, qpdfRuns: 1 + 2 });
  });
});

describe('a merge opened beside qpdf and canceled', () => {
  it('stops with the cancel, without falling back to the opening', async () => {
    const files = Array.from({ length: 6 }, (_, i) =>
      i % 2 ? 'pdfjs__freeculture.pdf' : 'pdfcpu__HL1396.pdf',
    );
    const test = await makeToolContext({ tool: mergeTool, files, options: { bookmarks: 'keep' } });
    // Canceled when the first read ends: the merge and the other reads are still running.
    const { running, qpdfRuns } = openAndRunCanceledAtFirstQpdfRun(mergeTool, test);
    try {
      await expect(running).rejects.toThrow('canceled by the test');
      // The merge and the reads it had started; no opening pass and no second merge.
      expect(qpdfRuns()).toBeLessThanOrEqual(1 + files.length);
    } finally {
      await test.cleanup();
    }
  });
});
