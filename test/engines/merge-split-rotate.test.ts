// Engine tier: merge, split and rotate on real corpus files with real qpdf.

import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mergeTool } from '../../src/tools/merge/tool.js';
import { rotateTool } from '../../src/tools/rotate.js';
import { splitTool } from '../../src/tools/split.js';
import { buildPdf, stream } from '../support/hostile-pdf.js';
import { toFile } from '../support/pdf.js';
import { checkPasses, outlineTitles, pageCount, pageText, rotations } from '../support/pdf-checks.js';
import { corpus } from '../support/tool-context.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const runs = useToolRuns();

const { run } = runs;

const TRACEMONKEY = 'pdfjs__tracemonkey.pdf'; // 14 pages
const LATEX4 = 'pypdf-samples__pdflatex-4-pages.pdf'; // 4 pages
const OUTLINE = 'pypdf-samples__pdflatex-outline.pdf'; // 4 pages, bookmarks

describe('merge', () => {
  it('concatenates files in upload order', async () => {
    const { output, emitted } = await run(mergeTool, [LATEX4, TRACEMONKEY], {});
    expect(await pageCount(output.path)).toBe(18);
    expect(await checkPasses(output.path)).toBe(true);
    expect(await pageText(output.path, 5)).toBe(await pageText(corpus(TRACEMONKEY), 1));
    expect(await pageText(output.path, 1)).toBe(await pageText(corpus(LATEX4), 1));
    expect(emitted.at(-1)!.percent).toBeLessThan(100);
    // qpdf's write progress took the merge step (15–90 %) from its start to its end; its stdout is a
    // pipe, so the lines may all arrive as the run ends and their number says nothing.
    const merging = emitted.filter((p) => p.stage === 'merge').map((p) => p.percent);
    expect(merging).toEqual(expect.arrayContaining([15, 90]));
  });

  it('takes pages_per_file selections, backwards ranges included', async () => {
    const { output } = await run(mergeTool, [TRACEMONKEY, LATEX4], {
      pages_per_file: ['r1', '4-1'],
      bookmarks: 'none',
    });
    expect(await pageCount(output.path)).toBe(5);
    expect(await pageText(output.path, 1)).toBe(await pageText(corpus(TRACEMONKEY), 14));
    expect(await pageText(output.path, 2)).toBe(await pageText(corpus(LATEX4), 4));
  });

  it('keeps every file’s bookmarks pointing at the merged pages', async () => {
    const { output } = await run(mergeTool, [OUTLINE, OUTLINE], { bookmarks: 'keep' });
    const original = await outlineTitles(corpus(OUTLINE));
    expect(original.length).toBeGreaterThan(0);
    expect(await outlineTitles(output.path)).toEqual([...original, ...original]);
    expect(await checkPasses(output.path)).toBe(true);
    const json = JSON.parse(
      execFileSync('qpdf', ['--json=2', '--json-key=outlines', output.path], { encoding: 'utf8' }),
    );
    const positions = (json.outlines as { destpageposfrom1: number }[]).map((o) => o.destpageposfrom1);
    expect(Math.max(...positions)).toBeGreaterThan(4);
  });

  it('adds one bookmark per file with per_file', async () => {
    const { output } = await run(mergeTool, [LATEX4, OUTLINE], { bookmarks: 'per_file' });
    const titles = await outlineTitles(output.path);
    expect(titles[0]).toBe('pypdf-samples__pdflatex-4-pages');
    expect(titles).toContain('pypdf-samples__pdflatex-outline');
  });

  it('refuses a selection outside a file with page_range_invalid', async () => {
    await expect(run(mergeTool, [LATEX4, TRACEMONKEY], { pages_per_file: ['5'] })).rejects.toMatchObject({
      code: 'page_range_invalid',
    });
  });
  it('merges inputs past what the merge reads whole (16 MiB) from their files, the same way', async () => {
    // Two one-page files of 9 MiB each (a long comment in the content stream): the first is read
    // whole into the merge's memory, the second is over what is left and parsed from its file, and
    // the output is then written as qpdf writes files (forkserver/merge.cc, READ_WHOLE_BYTES).
    const PADDING = `${'%'.padEnd(1023, '.')}\n`.repeat(9 * 1024);
    const big = (label: string) =>
      toFile(
        buildPdf([
          { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
          { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
          {
            num: 3,
            body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
          },
          {
            num: 4,
            body: stream('', `${PADDING}BT /F1 24 Tf 72 720 Td (${label}) Tj ET`),
          },
          { num: 5, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
        ]),
      );
    const [first, second] = [big('First file'), big('Second file')];
    const { output } = await run(mergeTool, [first, second, LATEX4], { bookmarks: 'none' });
    expect(await pageCount(output.path)).toBe(6);
    expect(await checkPasses(output.path)).toBe(true);
    expect(await pageText(output.path, 1)).toContain('First file');
    expect(await pageText(output.path, 2)).toContain('Second file');
    expect(await pageText(output.path, 3)).toBe(await pageText(corpus(LATEX4), 1));
  });
});

describe('split', () => {
  it('splits each page into a ZIP of parts', async () => {
    const { output } = await run(splitTool, [LATEX4], {});
    expect(output.contentType).toBe('application/zip');
    const listing = execFileSync('unzip', ['-Z1', output.path], { encoding: 'utf8' }).trim().split('\n');
    expect(listing).toEqual([1, 2, 3, 4].map((n) => `pypdf-samples__pdflatex-4-pages-${n}.pdf`));
  });

  it('splits every N pages with the last part shorter', async () => {
    const { output } = await run(splitTool, [TRACEMONKEY], { mode: 'every', pages: 5 });
    expect(output.facts).toMatchObject({ files: [{ pages: '1-5' }, { pages: '6-10' }, { pages: '11-14' }] });
  });

  it('returns a single range as a PDF, not a ZIP', async () => {
    const { output } = await run(splitTool, [TRACEMONKEY], { mode: 'ranges', ranges: ['2-4'] });
    expect(output.contentType).toBe('application/pdf');
    expect(await pageCount(output.path)).toBe(3);
    expect(await pageText(output.path, 1)).toBe(await pageText(corpus(TRACEMONKEY), 2));
  });
});

describe('rotate', () => {
  it('adds the angle to each selected page’s current rotation', async () => {
    const file = 'pypdf-samples__habibi-rotated.pdf';
    const before = await rotations(corpus(file));
    const { output } = await run(rotateTool, [file], { angle: 90, pages: '1,3' });
    const after = await rotations(output.path);
    expect(after[0]).toBe((before[0]! + 90) % 360);
    expect(after[1]).toBe(before[1]);
    expect(after[2]).toBe((before[2]! + 90) % 360);
    expect(await checkPasses(output.path)).toBe(true);
  });

  it('rotates every page when pages is omitted', async () => {
    const { output } = await run(rotateTool, [LATEX4], { angle: 180 });
    expect(await rotations(output.path)).toEqual([180, 180, 180, 180]);
  });
});
