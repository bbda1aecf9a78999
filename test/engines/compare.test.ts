// Engine tier: compare with the real pdfdiff engine in the document sandbox, on pairs made with known
// edits (test/support/compare-fixtures.py): each edit is found on its page and at its place, checked
// against where poppler (pdftotext -bbox) and PyMuPDF's image list put the edited content, and
// nothing else is reported.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDIFF_VENV } from '../../src/engines/pdfdiff/pdfdiff.js';
import { requireSandbox } from '../../src/process/sandbox.js';
import { compareTool } from '../../src/tools/compare.js';
import { useToolRuns } from '../support/use-tool-runs.js';

type Rect = [number, number, number, number];
interface Side {
  text: string;
  rects: Rect[];
  at?: [number, number];
}
interface Entry {
  old: number;
  new: number;
  moved: boolean;
  text_changes?: Array<{ type: string; old: Side; new: Side }>;
  visual?: { score: number; regions: Array<{ rect: Rect; pixels: number }> };
}
interface Report {
  identical: boolean;
  pages: Entry[];
  pages_added: number[];
  pages_removed: number[];
  pages_moved: Array<{ old: number; new: number }>;
}

const FIXTURES = path.resolve(import.meta.dirname, '../support/compare-fixtures.py');
let dir: string;
const file = (name: string) => path.join(dir, `${name}.pdf`);
const runs = useToolRuns();

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'quire-compare-'));
  execFileSync(`${PDFDIFF_VENV}/bin/python`, ['-I', FIXTURES, dir]);
  execFileSync(`${PDFDIFF_VENV}/bin/python`, ['-I', FIXTURES, dir, 'many', '1050']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function compareRun(edit: string, options: Record<string, unknown> = {}, old = 'old') {
  const run = await runs.run(compareTool, [file(old), file(edit)], options);
  return { ...run, report: JSON.parse(readFileSync(run.output.path, 'utf8')) as Report };
}

async function compare(edit: string, options: Record<string, unknown> = {}): Promise<Report> {
  return (await compareRun(edit, options)).report;
}

/** Where poppler finds `word` on `page`, in PDF points from the bottom left. */
function wordBoxes(pdf: string, page: number, word: string): Rect[] {
  const xhtml = execFileSync('pdftotext', ['-f', `${page}`, '-l', `${page}`, '-bbox', pdf, '-'], {
    encoding: 'utf8',
  });
  const height = Number(/<page width="[\d.]+" height="([\d.]+)"/.exec(xhtml)![1]);
  return [
    ...xhtml.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</g),
  ]
    .filter((m) => m[5] === word)
    .map((m) => [Number(m[1]), height - Number(m[4]), Number(m[3]), height - Number(m[2])]);
}

/** The bounding box of the image on page 3 (PyMuPDF), in PDF points from the bottom left. */
function imageBox(pdf: string): Rect {
  const script =
    'import sys, json, pymupdf; p = pymupdf.open(sys.argv[1])[2]; ' +
    'r = pymupdf.Rect(p.get_image_info()[0]["bbox"]) * ~p.transformation_matrix; print(json.dumps(list(r)))';
  return JSON.parse(
    execFileSync(`${PDFDIFF_VENV}/bin/python`, ['-I', '-c', script, pdf], { encoding: 'utf8' }),
  );
}

const overlaps = (a: Rect, b: Rect) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
const inside = (a: Rect, b: Rect, slack = 2) =>
  a[0] >= b[0] - slack && a[1] >= b[1] - slack && a[2] <= b[2] + slack && a[3] <= b[3] + slack;

describe('compare on pairs with known edits', () => {
  it('reports two identical files as identical, with no page entries, and progress rising to the compare step’s end', async () => {
    const { report, emitted } = await compareRun('identical');
    // inspect 10, then the compare step moves as the driver reads and compares the pages.
    const within = emitted.map((p) => p.percent).filter((p) => p > 10 && p < 100);
    // Progress is read, not pushed: how many readings fall inside the step depends on the machine's
    // pace (4 on a quiet one: 46, 67, 89, 99), so the test holds the rise and the step's end; the
    // page-by-page parsing is the pdfdiff tracker's table test (test/unit).
    expect(within.length).toBeGreaterThan(0);
    expect(within).toEqual([...within].sort((a, b) => a - b));
    expect(within.at(-1)).toBe(99);
    expect(report).toMatchObject({
      identical: true,
      pages: [],
      pages_added: [],
      pages_removed: [],
      pages_moved: [],
    });
  });

  it('finds a replaced word on its page and line in both files, and nothing else', async () => {
    const report = await compare('word');
    expect(report.pages.map((p) => [p.old, p.new])).toEqual([[2, 2]]);
    const [change, ...more] = report.pages[0]!.text_changes!;
    expect(more).toEqual([]);
    expect(change).toMatchObject({ type: 'replaced', old: { text: 'reads:' }, new: { text: 'states:' } });
    const [placed] = wordBoxes(file('word'), 2, 'states:');
    expect(overlaps(change!.new.rects[0]!, placed!)).toBe(true);
    expect(wordBoxes(file('old'), 2, 'reads:').some((box) => overlaps(change!.old.rects[0]!, box))).toBe(
      true,
    );
    // The longer word moves the rest of its line (and may rewrap the paragraph): pixels change
    // there, and nowhere above that line or below the paragraph.
    for (const { rect } of report.pages[0]!.visual!.regions) {
      expect(rect[3]).toBeLessThanOrEqual(change!.new.rects[0]![3] + 2);
      expect(rect[1]).toBeGreaterThanOrEqual(change!.new.rects[0]![1] - 40);
    }
    expect(report).toMatchObject({ pages_added: [], pages_removed: [], pages_moved: [] });
  });

  it('finds an inserted paragraph on its page with its place, and no other text change', async () => {
    const report = await compare('paragraph');
    expect(report.pages.map((p) => [p.old, p.new])).toEqual([[1, 1]]);
    const changes = report.pages[0]!.text_changes!;
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      type: 'inserted',
      old: { text: '', rects: [] },
      new: { text: 'An inserted paragraph says something entirely new here.' },
    });
    expect(changes[0]!.old.at).toHaveLength(2);
    const [placed] = wordBoxes(file('paragraph'), 1, 'inserted');
    expect(overlaps(changes[0]!.new.rects[0]!, placed!)).toBe(true);
    // What is above the new paragraph did not move; what is below moved down.
    for (const { rect } of report.pages[0]!.visual!.regions) {
      expect(rect[3]).toBeLessThanOrEqual(changes[0]!.new.rects[0]![3] + 2);
    }
  });

  it('reports a removed page as removed, and the pages after it as unchanged', async () => {
    const report = await compare('removed');
    expect(report).toMatchObject({
      identical: false,
      pages: [],
      pages_removed: [3],
      pages_added: [],
      pages_moved: [],
    });
  });

  it('reports two swapped pages as one page moved, with no other change', async () => {
    const report = await compare('swapped');
    expect(report.pages_moved).toHaveLength(1);
    const [move] = report.pages_moved;
    expect([move!.old, move!.new].sort()).toEqual([2, 3]);
    expect(report.pages).toEqual([expect.objectContaining({ ...move, moved: true })]);
    expect(report.pages[0]).not.toHaveProperty('text_changes');
    expect(report.pages[0]).not.toHaveProperty('visual');
    expect(report).toMatchObject({ pages_removed: [], pages_added: [] });
  });

  it('finds a changed image as one visual region inside the image, with no text change', async () => {
    const report = await compare('image');
    expect(report.pages.map((p) => [p.old, p.new])).toEqual([[3, 3]]);
    expect(report.pages[0]).not.toHaveProperty('text_changes');
    const { regions, score } = report.pages[0]!.visual!;
    expect(regions).toHaveLength(1);
    expect(inside(regions[0]!.rect, imageBox(file('image')))).toBe(true);
    expect(score).toBeGreaterThan(0);
  });

  it('finds a changed table cell on its page at the cell, in text and in pixels, run by the sandbox user', async () => {
    const { report, ctx } = await compareRun('table');
    // The driver ran in the document sandbox: it wrote as the sandbox's user, into the exchange
    // folder that holds only the two inputs, the driver and what it wrote (the job came on stdin).
    const runs = readdirSync(ctx.workDir).filter((name) => name.startsWith('pdfdiff-'));
    expect(runs).toHaveLength(1);
    const exchange = path.join(ctx.workDir, runs[0]!, 'exchange');
    expect(readdirSync(exchange).sort()).toEqual([
      'compare',
      'new.pdf',
      'old.pdf',
      'report.json',
      'summary.json',
    ]);
    const { uid } = await requireSandbox('test');
    expect(statSync(path.join(exchange, 'report.json')).uid).toBe(uid);
    expect(report.pages.map((p) => [p.old, p.new])).toEqual([[2, 2]]);
    const changes = report.pages[0]!.text_changes!;
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ type: 'replaced', old: { text: '42' }, new: { text: '47' } });
    const [cell] = wordBoxes(file('table'), 2, '47');
    expect(overlaps(changes[0]!.new.rects[0]!, cell!)).toBe(true);
    const { regions } = report.pages[0]!.visual!;
    expect(regions).toHaveLength(1);
    expect(inside(regions[0]!.rect, changes[0]!.new.rects[0]!)).toBe(true);
  });

  it('pairs a page rewritten throughout with the page in its place, not as one removed and one added', async () => {
    const report = await compare('rewritten');
    expect(report.pages.map((p) => [p.old, p.new])).toEqual([[4, 4]]);
    expect(report.pages[0]!.text_changes!.length).toBeGreaterThan(0);
    expect(report).toMatchObject({ pages_added: [], pages_removed: [], pages_moved: [] });
  });

  it('matches pages without text (scans) by their look: a changed image and a removed page', async () => {
    const image = (await compareRun('scan-image', {}, 'scan-old')).report;
    expect(image.pages.map((p) => [p.old, p.new])).toEqual([[3, 3]]);
    expect(image.pages[0]!.visual!.regions).toHaveLength(1);
    expect(inside(image.pages[0]!.visual!.regions[0]!.rect, imageBox(file('image')))).toBe(true);
    const removed = (await compareRun('scan-removed', {}, 'scan-old')).report;
    expect(removed).toMatchObject({ pages: [], pages_removed: [3], pages_added: [], pages_moved: [] });
  });

  it('lists at most 1,000 text changes on a page and says it left the rest out', async () => {
    const run = await runs.run(compareTool, [file('many-old'), file('many-new')], { mode: 'text' });
    const report = JSON.parse(readFileSync(run.output.path, 'utf8')) as Report & {
      pages: Array<Entry & { text_truncated: boolean }>;
    };
    expect(report.pages[0]!.text_changes).toHaveLength(1000);
    expect(report.pages[0]!.text_truncated).toBe(true);
    expect(report.pages[0]!.text_changes![0]).toMatchObject({
      type: 'replaced',
      old: { text: 'w1' },
      new: { text: 'x1' },
    });
  });

  it('refuses a page selection past the last page', async () => {
    await expect(compare('identical', { new_pages: '6' })).rejects.toMatchObject({
      code: 'page_range_invalid',
    });
  });

  it('compares only the selected pages, and each mode reports only its own kind of change', async () => {
    expect(await compare('removed', { old_pages: '1-2', new_pages: '1-2' })).toMatchObject({
      identical: true,
    });
    const text = await compare('table', { mode: 'text' });
    expect(text.pages[0]).toHaveProperty('text_changes');
    expect(text.pages[0]).not.toHaveProperty('visual');
    const visual = await compare('table', { mode: 'visual' });
    expect(visual.pages[0]).toHaveProperty('visual');
    expect(visual.pages[0]).not.toHaveProperty('text_changes');
  });
});
