import { describe, expect, it } from 'vitest';
import { pdfwriteArgs } from '../../src/engines/ghostscript.js';
import { parseFontList, parseImageList, parsePdfinfo } from '../../src/engines/poppler-parse.js';
import { encryptionJob, qpdfRestrictions } from '../../src/engines/qpdf-encrypt.js';
import { outlineTree, outlineUpdate } from '../../src/tools/merge-outlines.js';
import { fileStem, outputName } from '../../src/tools/output-name.js';

const ALL = {
  print: true,
  print_high_res: true,
  modify: true,
  copy: true,
  annotate: true,
  fill_forms: true,
  accessibility: true,
  assemble: true,
};

describe('pdfwriteArgs', () => {
  it('runs safely, batch, with page lines on stderr and the level’s targets', () => {
    const args = pdfwriteArgs('/w/in.pdf', '/w/out%d.pdf', { level: 'medium', grayscale: false });
    expect(args.slice(0, 4)).toEqual(['-dSAFER', '-dBATCH', '-dNOPAUSE', '-sstdout=%stderr']);
    expect(args).toContain('-dColorImageResolution=144');
    expect(args).toContain('-dColorImageDownsampleThreshold=1.389');
    expect(args).toContain('-sOutputFile=/w/out%%d.pdf');
    expect(args.at(-1)).toBe('/w/in.pdf');
    expect(args).not.toContain('-q');
  });

  it('high adds a stronger JPEG QFactor; grayscale converts colour', () => {
    const args = pdfwriteArgs('/w/in.pdf', '/w/out.pdf', { level: 'high', grayscale: true });
    expect(args).toContain('-dColorImageResolution=72');
    expect(args.join(' ')).toMatch(/QFactor 1\.3/);
    expect(args).toContain('-sColorConversionStrategy=Gray');
  });
});

describe('qpdf encryption job', () => {
  it('maps catalogue permissions to qpdf restrictions', () => {
    expect(qpdfRestrictions(ALL)).toEqual({
      print: 'full',
      modifyOther: 'y',
      extract: 'y',
      annotate: 'y',
      form: 'y',
      accessibility: 'y',
      assemble: 'y',
    });
    expect(qpdfRestrictions({ ...ALL, print_high_res: false, copy: false }).print).toBe('low');
    expect(qpdfRestrictions({ ...ALL, print: false }).print).toBe('none');
  });

  it('uses the 128-bit group with AES for aes-128', () => {
    const job = encryptionJob('/i.pdf', '/o.pdf', {
      userPassword: 'u',
      ownerPassword: 'o',
      algorithm: 'aes-128',
      permissions: ALL,
    });
    expect(job).toMatchObject({
      encrypt: { userPassword: 'u', ownerPassword: 'o', '128bit': { useAes: 'y' } },
    });
  });
});

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

describe('poppler parsers', () => {
  it('reads pdfinfo fields and per-page sizes', () => {
    const facts = parsePdfinfo(
      'Title:           A: B\nPages:           2\nPage    1 size:  595.276 x 841.89 pts (A4)\nPage    1 rot:   90\nPage    2 size:  612 x 792 pts (letter)\nPage    2 rot:   0\nPDF version:     1.7\n',
    );
    expect(facts.fields).toMatchObject({ Title: 'A: B', Pages: '2', 'PDF version': '1.7' });
    expect(facts.pages).toEqual([
      { page: 1, width_pt: 595.276, height_pt: 841.89, paper: 'A4', rotation: 90 },
      { page: 2, width_pt: 612, height_pt: 792, paper: 'letter', rotation: 0 },
    ]);
  });

  it('reads pdffonts columns, names with spaces included', () => {
    const text = [
      'name                                 type              encoding         emb sub uni object ID',
      '------------------------------------ ----------------- ---------------- --- --- --- ---------',
      'Times New Roman                      TrueType          WinAnsi          no  no  no       6  0',
    ].join('\n');
    expect(parseFontList(text)).toEqual([
      {
        name: 'Times New Roman',
        type: 'TrueType',
        encoding: 'WinAnsi',
        embedded: false,
        subset: false,
        unicode: false,
      },
    ]);
  });

  it('reads pdfimages -list rows', () => {
    const text =
      'page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio\n----\n   1     0 image    2548  3300  gray    1   1  ccitt  no        78  0   300   300 92.0K 9.0%\n';
    expect(parseImageList(text)).toEqual([
      { page: 1, type: 'image', width: 2548, height: 3300, object: '78 0' },
    ]);
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
