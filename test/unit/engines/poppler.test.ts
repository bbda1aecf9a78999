// poppler-utils' pure parts: exit/stderr mapping, the parsers of pdfinfo, pdffonts and pdfimages,
// and the render argv and output naming.
import { describe, expect, it } from 'vitest';
import { popplerFailure } from '../../../src/engines/poppler/failure.js';
import { parseFontList, parseImageList, parsePdfinfo } from '../../../src/engines/poppler/parse.js';
import { type RenderRequest, renderArgs, renderedPage } from '../../../src/engines/poppler/render.js';
import type { RunResult } from '../../../src/process/runner.js';
import { runResult as result } from './run-result.js';

describe('popplerFailure', () => {
  const cases: [string, RunResult, string | undefined][] = [
    ['success', result(0), undefined],
    ['password', result(1, 'Command Line Error: Incorrect password'), 'pdf_encrypted'],
    ['empty', result(1, 'Syntax Error: Document stream is empty'), 'pdf_corrupt'],
    ['other', result(99, ''), 'engine_failed'],
  ];
  it.each(cases)('%s → %s', (_name, run, code) => {
    expect(popplerFailure(run)?.code).toBe(code);
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
      {
        page: 1,
        type: 'image',
        width: 2548,
        height: 3300,
        object: '78 0',
        color: 'gray',
        components: 1,
        bpc: 1,
        encoding: 'ccitt',
        xPpi: 300,
        yPpi: 300,
        bytes: 94208,
      },
    ]);
  });
});

describe('poppler render argv', () => {
  const base: RenderRequest = {
    program: 'pdftocairo',
    range: { first: 3, last: 9 },
    dpi: 150,
    format: 'jpeg',
    quality: 85,
  };
  const cases: [string, RenderRequest, string[]][] = [
    ['JPEG from the engine at the given quality', base, ['-jpeg', '-jpegopt', 'quality=85']],
    ['raw pixels as uncompressed TIFF', { ...base, format: 'raw' }, ['-tiff', '-tiffcompression', 'none']],
    [
      'the same options for pdftoppm',
      { ...base, program: 'pdftoppm', quality: 20 },
      ['-jpeg', '-jpegopt', 'quality=20'],
    ],
  ];
  it.each(cases)('%s', (_name, request, output) => {
    expect(renderArgs(request, '/w/in.pdf', '/w/render-0')).toEqual([
      '-f',
      '3',
      '-l',
      '9',
      '-r',
      '150',
      ...output,
      '/w/in.pdf',
      '/w/render-0',
    ]);
  });

  const names: [string, string, RenderRequest['format'], number | undefined][] = [
    ['render-2-07.jpg', 'render-2', 'jpeg', 7],
    ['render-2-123.tif', 'render-2', 'raw', 123],
    ['render-2-7.jpg', 'render-2', 'jpeg', 7],
    ['render-2-07.tif', 'render-2', 'jpeg', undefined],
    ['render-12-07.jpg', 'render-1', 'jpeg', undefined],
    ['render-2-07.jpg.part', 'render-2', 'jpeg', undefined],
    ['page-7.png', 'render-2', 'raw', undefined],
  ];
  it.each(names)('%s under prefix %s (%s) is page %s', (file, prefix, format, page) => {
    expect(renderedPage(file, prefix, format)).toBe(page);
  });
});
