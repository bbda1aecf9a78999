// Pure builders of the tools: merged outlines, output file names and ZIP entry names.
import { describe, expect, it } from 'vitest';
import { entryPath } from '../../src/tools/lib/html-bundle.js';
import { outlineTree, outlineUpdate } from '../../src/tools/lib/merge-outlines.js';
import { fileStem, outputName } from '../../src/tools/lib/output-name.js';

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
    const update = outlineUpdate(nodes, 20, '1 0 R', { '/Type': '/Catalog', '/Pages': '2 0 R' }) as {
      qpdf: [unknown, Record<string, { value: Record<string, unknown> }>];
    };
    const objects = update.qpdf[1];
    expect(objects['obj:1 0 R']!.value).toMatchObject({ '/Outlines': '21 0 R', '/Pages': '2 0 R' });
    expect(objects['obj:21 0 R']!.value).toMatchObject({
      '/Type': '/Outlines',
      '/First': '22 0 R',
      '/Count': 1,
    });
    expect(objects['obj:22 0 R']!.value).toMatchObject({ '/Title': 'u:a', '/First': '23 0 R', '/Count': -1 });
    expect(objects['obj:23 0 R']!.value).toMatchObject({ '/Title': 'u:A1', '/Parent': '22 0 R' });
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
