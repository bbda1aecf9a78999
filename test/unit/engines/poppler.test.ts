// poppler-utils' pure parts: exit/stderr mapping and the parsers of pdfinfo, pdffonts and pdfimages.
import { describe, expect, it } from 'vitest';
import { popplerFailure } from '../../../src/engines/poppler/failure.js';
import { parseFontList, parseImageList, parsePdfinfo } from '../../../src/engines/poppler/parse.js';
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
