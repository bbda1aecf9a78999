// The adapter-level pieces of the hostile-PDF fixes, table-driven: qpdf's page-tree loop maps to
// pdf_corrupt, its repair warnings and a trailer without /Size are recognised, and pdfinfo's
// exponent page sizes are read.
import { describe, expect, it } from 'vitest';
import { parsePdfinfo } from '../../src/engines/poppler/parse.js';
import { QPDF_RECOVERED, QPDF_TRAILER_WITHOUT_SIZE, qpdfFailure } from '../../src/engines/qpdf/failure.js';
import { runResult as result } from '../unit/engines/run-result.js';

describe('hostile PDF error mapping', () => {
  it('maps a page tree that contains itself to pdf_corrupt', () => {
    const run = result(2, 'qpdf: in.pdf (object 6 0): Loop detected in /Pages structure (getAllPages)\n');
    expect(qpdfFailure(run, { passwordGiven: false })?.code).toBe('pdf_corrupt');
  });

  it.each([
    ['WARNING: in.pdf: file is damaged', true],
    ['WARNING: in.pdf: Attempting to reconstruct cross-reference table', true],
    ['WARNING: in.pdf (object 4 0, offset 280): recovered stream length: 45', true],
    ["WARNING: in.pdf: can't find PDF header", true],
    ['WARNING: in.pdf (object 3 0): dictionary has duplicated key /MediaBox', false],
  ])('recognises %s as a repair: %s', (stderr, repaired) => {
    expect(QPDF_RECOVERED.test(stderr)).toBe(repaired);
  });

  it.each([
    ['WARNING: in.pdf (trailer, offset 282): trailer dictionary lacks /Size key', true],
    ['WARNING: in.pdf: file is damaged', false],
  ])('recognises %s as a trailer the repair must give /Size: %s', (stderr, lacks) => {
    expect(QPDF_TRAILER_WITHOUT_SIZE.test(stderr)).toBe(lacks);
  });

  it('reads page sizes pdfinfo prints in exponent form', () => {
    const facts = parsePdfinfo(
      'Pages:           1\nPage    1 size:  1.44e+07 x 2.5e+06 pts\nPage    1 rot:   0\n',
    );
    expect(facts.pages[0]).toMatchObject({ width_pt: 14_400_000, height_pt: 2_500_000 });
  });
});
