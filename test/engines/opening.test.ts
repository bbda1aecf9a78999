// Engine tier: how the runner opens PDF inputs (src/tools/framework/inputs.ts) on real qpdf: the in-process
// opening of small, clean PDFs (quick-open.ts) against qpdf's own reading of the corpus, the rotate
// tool's engine runs counted by the engines' real duration observer (what /metrics counts), and
// several inputs opened a few at a time with their errors taken in upload order.
import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { QuireError } from '../../src/errors/quire-error.js';
import { QUICK_OPEN_MAX_BYTES, quickPageCount } from '../../src/tools/framework/quick-open.js';
import { mergeTool } from '../../src/tools/merge/tool.js';
import { rotateTool } from '../../src/tools/rotate.js';
import { hostileVariants, writeVariant } from '../support/hostile-pdf.js';
import { checkPasses, pageCount, rotations } from '../support/pdf-checks.js';
import { corpus, corpusDir, openAndRunCountingQpdf, runTool } from '../support/tool-context.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const exec = promisify(execFile);
const runs = useToolRuns();

/** Rotates `file` with real engines whose observer counts the qpdf runs. */
async function rotateCounting(file: string, options: { angle: number; pages?: string }, maxPages?: number) {
  const test = await runs.context({
    tool: rotateTool,
    files: [file],
    options,
    ...(maxPages === undefined ? {} : { limits: { maxPages } }),
  });
  return openAndRunCountingQpdf(rotateTool, test.ctx);
}

/** qpdf's own answer for a file: exit code, the root's /Count and the pages its walk finds. */
async function qpdfPages(file: string): Promise<{ code: number; declared: number; walked: number }> {
  const out = await exec('qpdf', ['--show-npages', '--show-pages', file]).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? '' }),
  );
  return {
    code: out.code,
    declared: Number(/^(-?\d+)$/m.exec(out.stdout)?.[1]),
    walked: out.stdout.match(/^page \d+: /gm)?.length ?? 0,
  };
}

describe('quick opening', () => {
  it('counts the pages qpdf walks, on every small corpus file it accepts', async () => {
    const small = readdirSync(corpusDir)
      .map((name) => corpus(name))
      .filter((file) => statSync(file).size <= QUICK_OPEN_MAX_BYTES);
    let accepted = 0;
    for (const file of small) {
      const quick = await quickPageCount(file, statSync(file).size);
      if (quick === undefined) continue;
      accepted++;
      const qpdf = await qpdfPages(file);
      expect({ file, quick }).toEqual({ file, quick: qpdf.walked });
      expect(qpdf.declared).toBe(qpdf.walked);
    }
    // The corpus holds at least a dozen small, clean PDFs; fewer means the shortcut stopped working.
    expect(accepted).toBeGreaterThanOrEqual(12);
  });

  it('leaves to qpdf what it must not parse: large files, object streams, encryption, wrong /Count', async () => {
    for (const name of [
      'pdfjs__tracemonkey.pdf', // 1 MB
      'pypdf-samples__pdflatex-4-pages.pdf', // object streams
      'qpdf__enc-R3-V2-O-master.pdf', // encrypted (owner password only)
      'pdfium__document_aactions.pdf', // /Count 3, one page
      'pdfjs__xref_command_missing.pdf', // startxref points at no xref
      'README.md',
    ]) {
      expect({ name, quick: await quickPageCount(corpus(name), statSync(corpus(name)).size) }).toEqual({
        name,
        quick: undefined,
      });
    }
  });
});

describe('rotate of a small, clean PDF', () => {
  it('runs qpdf exactly once: the rotation, with no opening run', async () => {
    const { output, qpdfRuns } = await rotateCounting('pdf20ex__Simple_PDF_2.0_file.pdf', { angle: 90 });
    expect(qpdfRuns).toBe(1);
    expect(await rotations(output.path)).toEqual([90]);
    expect(output.facts).toEqual({ pages: 1 });
  });

  it('resolves a page selection against the count found in-process', async () => {
    const { output, qpdfRuns } = await rotateCounting('pdfbox__with_outline.pdf', {
      angle: 180,
      pages: '2,z',
    });
    expect(qpdfRuns).toBe(1);
    expect(await rotations(output.path)).toEqual([0, 180, 0, 0, 0, 180]);
  });

  it('enforces the page limit before any engine runs', async () => {
    const refused = rotateCounting('pdfbox__with_outline.pdf', { angle: 90 }, 5);
    await expect(refused).rejects.toBeInstanceOf(QuireError);
    await expect(refused).rejects.toMatchObject({ code: 'limit_pages_exceeded' });
  });

  it('falls back to the qpdf opening when the rotation has to repair the file, and succeeds as before', async () => {
    // Passes the in-process checks, but qpdf warns that it had to reconstruct the xref (exit 3).
    const file = 'qpdf__bad-xref-entry.pdf';
    expect(await quickPageCount(corpus(file), statSync(corpus(file)).size)).toBe(1);
    const { output, qpdfRuns } = await rotateCounting(file, { angle: 90 });
    // The failed rotation, the opening, the repair's plain rewrite (its copy checked in-process: a
    // classic xref with /Size, one flat page tree of the page the opening walked), the rotation.
    expect(qpdfRuns).toBe(4);
    expect(await checkPasses(output.path)).toBe(true);
    expect(await pageCount(output.path)).toBe(1);
    expect(await rotations(output.path)).toEqual([90]);
  });
});

describe('repair during the opening', () => {
  async function rotateRepairing(file: string) {
    const test = await runs.context({ tool: rotateTool, files: [file], options: { angle: 90 } });
    return openAndRunCountingQpdf(rotateTool, test.ctx);
  }

  it('repairs a damaged file with a right /Count in one plain rewrite, its copy checked in-process', async () => {
    // Damaged (no EOF marker, broken xref): the opening, the plain rewrite (qpdf warns about the
    // input again; the copy's trailer, xref and page tree are read here instead of counted by qpdf),
    // the rotation. Before: the repair's three reads (trailer, root, page tree), its rewrite and
    // the rewrite's page count, 7 runs in all.
    const { output, qpdfRuns } = await rotateRepairing(corpus('pdfjs__scan-bad.pdf'));
    expect(qpdfRuns).toBe(3);
    expect(await checkPasses(output.path)).toBe(true);
    expect(await pageCount(output.path)).toBe(1);
    expect(await rotations(output.path)).toEqual([90]);
  });

  it('sets /Size with the JSON update when the trailer has none, without a plain rewrite first', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-opening-'));
    runs.onCleanup(() => rm(dir, { recursive: true, force: true }));
    const file = await writeVariant(dir, 'no-size.pdf', hostileVariants['trailer-without-size']!());
    const { output, qpdfRuns } = await rotateRepairing(file);
    // The opening (qpdf warns that the trailer lacks /Size), the repair's reads (trailer, root, page
    // tree), its rewrite with the JSON update, that rewrite's page count, the rotation and its count.
    expect(qpdfRuns).toBe(8);
    expect(await checkPasses(output.path)).toBe(true);
    expect(await rotations(output.path)).toEqual([90]);
    const tail = (await readFile(output.path, 'latin1')).slice(-512);
    expect(tail).toMatch(/trailer\s*<<.*\/Size \d+/s);
  });

  it('mends a wrong /Count with the JSON update, without a plain rewrite first', async () => {
    // /Count 3 over one page: the opening, the repair's reads, its rewrite, its page count, the rotation.
    const { output, qpdfRuns } = await rotateRepairing(corpus('pdfium__document_aactions.pdf'));
    expect(qpdfRuns).toBe(7);
    expect(await pageCount(output.path)).toBe(1);
    expect(await rotations(output.path)).toEqual([90]);
  });
});

describe('several inputs', () => {
  const LATEX4 = 'pypdf-samples__pdflatex-4-pages.pdf'; // 4 pages
  const TRACEMONKEY = 'pdfjs__tracemonkey.pdf'; // 14 pages
  const UNREADABLE = 'pdflib__missing_xref_trailer_dict.pdf'; // qpdf cannot open it

  it('fails with the first failing file in upload order, though later files open fine', async () => {
    const merged = runTool(mergeTool, [LATEX4, UNREADABLE, TRACEMONKEY, LATEX4], { bookmarks: 'none' });
    await expect(merged).rejects.toMatchObject({ code: 'pdf_corrupt' });
  });

  it('fails on the page limit at the file that passes it, before a later file’s error', async () => {
    const merged = runTool(
      mergeTool,
      [TRACEMONKEY, LATEX4, UNREADABLE],
      { bookmarks: 'none' },
      { maxPages: 15 },
    );
    await expect(merged).rejects.toMatchObject({ code: 'limit_pages_exceeded' });
  });

  it('opens ten inputs and merges all their pages in upload order', async () => {
    const files = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? LATEX4 : TRACEMONKEY));
    const { output } = await runs.run(mergeTool, files, { bookmarks: 'none' });
    expect(await pageCount(output.path)).toBe(5 * 4 + 5 * 14);
    expect(await checkPasses(output.path)).toBe(true);
  });
});
