// Engine tier: merge's bookmarks, both ways the tool writes them: by the one-run merge in the qpdf
// forkserver (forkserver/merge-bookmarks.cc), and appended to qpdf's output as an incremental update
// when it merges in separate runs (no forkserver). Read back by qpdf, poppler and MuPDF; hostile
// outlines (cycles, depth, width) stay bounded.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWrittenPdf } from '../../src/tools/framework/written-pdf.js';
import { MAX_OUTLINE_ITEMS } from '../../src/tools/merge/merge-outlines.js';
import { mergeTool } from '../../src/tools/merge/tool.js';
import {
  buildPdf,
  healthy,
  hostileVariants,
  type PdfObject,
  stream,
  writeVariant,
} from '../support/hostile-pdf.js';
import { checkPasses, outlineTitles, pageCount } from '../support/pdf-checks.js';
import { corpus, openAndRunCountingQpdf } from '../support/tool-context.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const exec = promisify(execFile);
const PYMUPDF = '/opt/quire-pymupdf/bin/python';

const OUTLINE = 'pypdf-samples__pdflatex-outline.pdf'; // 4 pages, 9 bookmarks (named destinations)
const LATEX4 = 'pypdf-samples__pdflatex-4-pages.pdf'; // 4 pages, none
const GEOTOPO = 'pypdf-samples__GeoTopo-komprimiert.pdf'; // 117 pages, nested bookmarks

const runs = useToolRuns();

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'quire-merge-outlines-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const WAYS = [
  { way: 'in one run', oneRun: true },
  { way: 'in separate runs', oneRun: false },
];

/** The merged file, merged `oneRun` (with the qpdf forkserver) or in separate runs (without). */
async function merge(files: string[], options: Record<string, unknown>, oneRun: boolean) {
  if (oneRun) return (await runs.run(mergeTool, files, options)).output.path;
  const test = await runs.context({ tool: mergeTool, files, options });
  return (await openAndRunCountingQpdf(mergeTool, test.ctx, false)).output.path;
}

type TocEntry = [level: number, title: string, page: number];

/** MuPDF's reading of the outline: level, title and 1-based target page of every item. */
async function mupdfToc(file: string): Promise<TocEntry[]> {
  const script = 'import fitz, json, sys; print(json.dumps(fitz.open(sys.argv[1]).get_toc(simple=True)))';
  const { stdout } = await exec(PYMUPDF, ['-c', script, file]);
  return JSON.parse(stdout) as TocEntry[];
}

/** Poppler's reading of the outline (`pdftohtml -xml`): title and target page of every item. */
async function popplerOutline(file: string): Promise<[string, number][]> {
  const { stdout } = await exec('pdftohtml', ['-xml', '-stdout', '-i', '-q', file]);
  return [...stdout.matchAll(/<item page="(\d+)">([^<]*)<\/item>/g)].map((m) => [m[2]!, Number(m[1])]);
}

const shifted = (toc: TocEntry[], by: number, deeper = 0): TocEntry[] =>
  toc.map(([level, title, page]) => [level + deeper, title, page + by]);

describe.each(WAYS)('merge bookmarks $way', ({ oneRun }) => {
  it('appends every file’s bookmarks that qpdf --check passes and poppler and MuPDF read at the merged pages', async () => {
    const output = await merge([OUTLINE, LATEX4, OUTLINE], {}, oneRun);
    expect(await checkPasses(output)).toBe(true);
    // Written with the pages by the one-run merge; appended as an update after separate runs.
    const { stdout: xrefs } = await exec('grep', ['-c', 'startxref', output]);
    expect(Number(xrefs.trim())).toBe(oneRun ? 1 : 2);
    expect(await pageCount(output)).toBe(12);
    const { stdout: info } = await exec('pdfinfo', [output]);
    expect(info).toMatch(/^Pages:\s+12$/m);

    const original = await mupdfToc(corpus(OUTLINE));
    expect(original.length).toBeGreaterThan(0);
    expect(await mupdfToc(output)).toEqual([...original, ...shifted(original, 8)]);
    const poppler = await popplerOutline(corpus(OUTLINE));
    expect(await popplerOutline(output)).toEqual([
      ...poppler,
      ...poppler.map(([title, page]): [string, number] => [title, page + 8]),
    ]);
  });

  it('keeps the nesting, open state and pages of a real nested outline', async () => {
    const output = await merge([LATEX4, GEOTOPO], { bookmarks: 'keep' }, oneRun);
    expect(await checkPasses(output)).toBe(true);
    const original = await mupdfToc(corpus(GEOTOPO));
    expect(Math.max(...original.map(([level]) => level))).toBeGreaterThan(1);
    expect(await mupdfToc(output)).toEqual(shifted(original, 4));
    const open = async (file: string) => {
      const { stdout } = await exec('qpdf', ['--json=2', '--json-key=outlines', file]);
      type Item = { open: boolean; kids: Item[] };
      const walk = (items: Item[]): boolean[] => items.flatMap((i) => [i.open, ...walk(i.kids)]);
      return walk((JSON.parse(stdout) as { outlines: Item[] }).outlines);
    };
    expect(await open(output)).toEqual(await open(corpus(GEOTOPO)));
  });

  it('per_file nests each file’s bookmarks under its name and follows page selections', async () => {
    const output = await merge(
      [LATEX4, OUTLINE],
      { bookmarks: 'per_file', pages_per_file: ['2-1', '4,3'] },
      oneRun,
    );
    expect(await checkPasses(output)).toBe(true);
    const toc = await mupdfToc(output);
    expect(toc.slice(0, 2)).toEqual([
      [1, 'pypdf-samples__pdflatex-4-pages', 1],
      [1, 'pypdf-samples__pdflatex-outline', 3],
    ]);
    // Only the bookmarks into the kept pages 4 and 3 remain, now at merged pages 3 and 4.
    const kept = (await mupdfToc(corpus(OUTLINE))).filter(([, , page]) => page >= 3);
    expect(toc.slice(2)).toEqual(kept.map(([l, t, p]) => [l + 1, t, p === 4 ? 3 : 4]));
  });

  it('writes no bookmarks, and nothing after qpdf, when no input has any', async () => {
    const output = await merge([LATEX4, LATEX4], {}, oneRun);
    expect(await outlineTitles(output)).toEqual([]);
    const { stdout } = await exec('grep', ['-c', 'startxref', output]);
    expect(Number(stdout.trim())).toBe(1);
  });
});

/** One page plus an outline of `items` (objects from 6 on) under root 6. */
function withOutline(items: (first: number) => PdfObject[], catalogExtra = ''): Buffer {
  return buildPdf([
    { num: 1, body: `<< /Type /Catalog /Pages 2 0 R /Outlines 6 0 R ${catalogExtra} >>` },
    { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>' },
    { num: 4, body: stream('', 'BT ET') },
    { num: 5, body: '<< >>' },
    ...items(7),
  ]);
}

/** A chain of `depth` items, each the only child of the one before. */
const deepChain = (depth: number) =>
  withOutline((first) => [
    { num: 6, body: `<< /Type /Outlines /First ${first} 0 R /Last ${first} 0 R /Count ${depth} >>` },
    ...Array.from({ length: depth }, (_, d) => {
      const kids = d < depth - 1 ? ` /First ${first + d + 1} 0 R /Last ${first + d + 1} 0 R /Count 1` : '';
      return {
        num: first + d,
        body: `<< /Title (D${d}) /Parent ${d === 0 ? 6 : first + d - 1} 0 R /Dest [3 0 R /Fit]${kids} >>`,
      };
    }),
  ]);

/** `count` siblings at the top level. */
const wideList = (count: number) =>
  withOutline((first) => [
    {
      num: 6,
      body: `<< /Type /Outlines /First ${first} 0 R /Last ${first + count - 1} 0 R /Count ${count} >>`,
    },
    ...Array.from({ length: count }, (_, k) => ({
      num: first + k,
      body:
        `<< /Title (W${k}) /Parent 6 0 R /Dest [3 0 R /XYZ 0 ${k} null]` +
        `${k > 0 ? ` /Prev ${first + k - 1} 0 R` : ''}${k < count - 1 ? ` /Next ${first + k + 1} 0 R` : ''} >>`,
    })),
  ]);

describe('reading the file qpdf merged', () => {
  it('finds the catalog and every page of a classic-xref file, and refuses what it cannot map', async () => {
    const file = await writeVariant(dir, 'one-page.pdf', healthy());
    const layout = await readWrittenPdf(file, 1);
    expect(layout).toMatchObject({ root: '1 0 R', size: 6, pages: ['3 0 R'] });
    // A page count other than the merge's means a page tree it cannot map: no guessing.
    await expect(readWrittenPdf(file, 2)).rejects.toMatchObject({ code: 'engine_failed' });
    // An xref stream (not what qpdf writes for --empty) is refused the same way.
    await expect(readWrittenPdf(corpus('pdfjs__autoprint.pdf'), 1)).rejects.toMatchObject({
      code: 'engine_failed',
    });
  });
});

describe.each(WAYS)('merge bookmarks of hostile outlines $way', ({ oneRun }) => {
  it('a page label that spells catalog syntax does not mislead the reading of the merged catalog', async () => {
    const labels = '/PageLabels << /Nums [0 << /P (endobj\\) /Pages 9 0 R >> endobj) >>] >>';
    const file = await writeVariant(
      dir,
      'labels.pdf',
      withOutline(
        (first) => [
          { num: 6, body: `<< /Type /Outlines /First ${first} 0 R /Last ${first} 0 R /Count 1 >>` },
          { num: first, body: '<< /Title (Only) /Parent 6 0 R /Dest [3 0 R /Fit] >>' },
        ],
        labels,
      ),
    );
    const output = await merge([corpus(LATEX4), file], {}, oneRun);
    expect(await checkPasses(output)).toBe(true);
    expect(await mupdfToc(output)).toEqual([[1, 'Only', 5]]);
  });

  it.each(['outline-next-cycle', 'outline-first-cycle'])(
    'a %s outline merges to a file qpdf --check passes, each item once',
    async (name) => {
      const file = await writeVariant(dir, `${name}.pdf`, hostileVariants[name]!());
      const output = await merge([file, file], {}, oneRun);
      expect(await checkPasses(output)).toBe(true);
      const titles = await outlineTitles(output);
      expect(titles.length).toBe(2 * (await outlineTitles(file)).length);
    },
  );

  it('a 20,000-level outline merges within seconds, cut at the depth qpdf reads', async () => {
    const file = await writeVariant(dir, 'deep.pdf', deepChain(20_000));
    const started = Date.now();
    const output = await merge([file, corpus(LATEX4)], {}, oneRun);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await checkPasses(output)).toBe(true);
    const toc = await mupdfToc(output);
    expect(toc.length).toBeGreaterThan(10);
    expect(toc.length).toBeLessThanOrEqual(64);
  }, 60_000);

  it(`an outline of ${MAX_OUTLINE_ITEMS + 5_000} items keeps the first ${MAX_OUTLINE_ITEMS}`, async () => {
    const file = await writeVariant(dir, 'wide.pdf', wideList(MAX_OUTLINE_ITEMS + 5_000));
    const output = await merge([corpus(LATEX4), file], {}, oneRun);
    expect(await checkPasses(output)).toBe(true);
    const toc = await mupdfToc(output);
    expect(toc.length).toBe(MAX_OUTLINE_ITEMS);
    expect(toc.at(-1)).toEqual([1, `W${MAX_OUTLINE_ITEMS - 1}`, 5]);
  }, 120_000);
});
