// Pure builders of the tools: merged outlines, output file names and ZIP entry names.
import { describe, expect, it } from 'vitest';
import { fileStem, outputName } from '../../src/tools/framework/output-name.js';
import { dictEntries } from '../../src/tools/framework/pdf-dict.js';
import { entryPath } from '../../src/tools/html-to-pdf/html-bundle.js';
import { MAX_OUTLINE_DEPTH, MAX_OUTLINE_ITEMS, outlineTree } from '../../src/tools/merge/merge-outlines.js';
import {
  catalogWithOutlines,
  outlineObjects,
  pdfDest,
  pdfText,
} from '../../src/tools/merge/outline-update.js';

describe('merge outlines', () => {
  const outline = (title: string, page: number | null, kids: never[] = []) => ({
    title,
    dest: page === null ? null : [`${page} 0 R`, '/XYZ', 0, 800, null],
    destpageposfrom1: page,
    open: true,
    kids,
  });
  const file = (title: string, pages: number[], offset: number, outlines: ReturnType<typeof outline>[]) => ({
    title,
    outlines,
    pageMap: new Map(pages.map((p, k) => [p, offset + k])),
    firstIndex: offset,
    pageNumbers: new Map<string, number>(),
  });

  it('points bookmarks at the merged pages and drops those into unselected pages', () => {
    const files = [
      file('a', [1, 2], 0, [outline('A1', 1), outline('A3', 3)]),
      file('b', [1], 2, [outline('B1', 1)]),
    ];
    const nodes = outlineTree(files, ['10 0 R', '11 0 R', '12 0 R'], 'keep');
    expect(nodes.map((n) => [n.title, n.dest?.[0]])).toEqual([
      ['A1', '10 0 R'],
      ['B1', '12 0 R'],
    ]);
    expect(nodes[0]!.dest).toEqual(['10 0 R', '/XYZ', 0, 800, null]);
  });

  it('builds linked outline objects and points the catalog at them', () => {
    const nodes = outlineTree([file('a', [1], 0, [outline('A1', 1)])], ['3 0 R'], 'per_file');
    const { bodies, root } = outlineObjects(nodes, 21);
    const catalog = catalogWithOutlines('<< /Pages 2 0 R /Type /Catalog >>', root);
    const value = (body: string, key: string) => dictEntries(body).find((e) => e.key === key)?.value;
    expect(value(catalog, '/Outlines')).toBe('21 0 R');
    expect(value(catalog, '/Pages')).toBe('2 0 R');
    expect(value(bodies[0]!, '/Type')).toBe('/Outlines');
    expect(value(bodies[0]!, '/First')).toBe('22 0 R');
    expect(value(bodies[0]!, '/Count')).toBe('1');
    expect(value(bodies[1]!, '/Title')).toBe('(a)');
    expect(value(bodies[1]!, '/First')).toBe('23 0 R');
    expect(value(bodies[1]!, '/Count')).toBe('-1');
    expect(value(bodies[2]!, '/Title')).toBe('(A1)');
    expect(value(bodies[2]!, '/Parent')).toBe('22 0 R');
  });

  it('counts open items at every level and links siblings both ways', () => {
    const tree = [
      { title: 'x', open: true, dest: ['3 0 R', '/Fit'], kids: [{ title: 'x1', open: true, kids: [] }] },
      { title: 'y', open: true, dest: ['3 0 R', '/Fit'], kids: [] },
    ];
    const { bodies } = outlineObjects(tree, 10);
    const value = (body: string, key: string) => dictEntries(body).find((e) => e.key === key)?.value;
    expect(value(bodies[0]!, '/Count')).toBe('3');
    expect(value(bodies[1]!, '/Next')).toBe('12 0 R');
    expect(value(bodies[2]!, '/Prev')).toBe('11 0 R');
    expect(value(bodies[1]!, '/Count')).toBe('1');
  });

  it('replaces a catalog /Outlines and ignores keys written inside strings', () => {
    const catalog = '<< /Lang (x /Outlines 9 0 R \\) ) /Outlines 5 0 R /Pages 2 0 R >>';
    expect(catalogWithOutlines(catalog, '30 0 R').replace(/\s+/g, ' ')).toBe(
      '<< /Lang (x /Outlines 9 0 R \\) ) /Pages 2 0 R /Outlines 30 0 R >>',
    );
  });

  it('writes titles as PDF text strings and keeps only destination views', () => {
    expect(pdfText('Intro (draft) \\')).toBe('(Intro \\(draft\\) \\\\)');
    expect(pdfText('Über')).toBe('<FEFF00DC006200650072>');
    expect(pdfDest(['6 0 R', '/XYZ', 124.802, 716.092, null])).toBe('[6 0 R /XYZ 124.802 716.092 null]');
    expect(pdfDest(['6 0 R', '/XYZ', '9 0 R', 1, 1])).toBe('[6 0 R /Fit]');
    expect(pdfDest(['6 0 R', '/FitH', 1e300])).toBe('[6 0 R /Fit]');
    expect(pdfDest(['6 0 R', '/JavaScript'])).toBe('[6 0 R /Fit]');
  });

  it('bounds how deep and how many bookmarks a hostile outline yields', () => {
    let deep = outline('leaf', 1);
    for (let d = 0; d < MAX_OUTLINE_DEPTH * 4; d++) deep = { ...outline(`d${d}`, 1), kids: [deep as never] };
    let depth = 0;
    for (let n = outlineTree([file('a', [1], 0, [deep])], ['3 0 R'], 'keep'); n.length > 0; n = n[0]!.kids)
      depth++;
    expect(depth).toBe(MAX_OUTLINE_DEPTH);

    const wide = Array.from({ length: MAX_OUTLINE_ITEMS + 10 }, (_, k) => outline(`w${k}`, 1));
    const nodes = outlineTree([file('a', [1], 0, wide), file('b', [1], 1, wide)], ['3 0 R', '4 0 R'], 'keep');
    expect(nodes.length).toBe(MAX_OUTLINE_ITEMS);
  });
});

describe('output names', () => {
  const cases: [string, string][] = [
    ['report.pdf', 'report'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\x\\Bericht über.pdf', 'Bericht über'],
    ['a<b>:c|d?.pdf', 'a_b_c_d_'],
    ['...', 'document'],
    ['', 'document'],
    ['line\nbreak.pdf', 'line_break'],
  ];
  it.each(cases)('%j → stem %j', (name, stem) => {
    expect(fileStem(name)).toBe(stem);
  });
  it('appends the suffix', () => {
    expect(outputName('scan.PDF', 'rotated')).toBe('scan-rotated.pdf');
  });
});

describe('ZIP entry names', () => {
  it.each(['../x', 'a/../../x', '/etc/passwd', 'C:/x', 'a\\b', 'a\0b', ''])('refuses %j', (name) => {
    expect(() => entryPath(name)).toThrow();
  });
  it('keeps ordinary nested names', () => {
    expect(entryPath('./css/site.css')).toBe('css/site.css');
  });
});
