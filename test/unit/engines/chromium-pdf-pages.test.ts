// Reading the page count from Chromium's own PDF (Skia's layout) instead of running qpdf: the count
// comes from the catalog's page tree root, found through the xref table, so text a page puts in
// its title cannot fake it; any other layout gives undefined and the tool asks qpdf.
import { describe, expect, it } from 'vitest';
import { skiaPageCount } from '../../../src/engines/chromium/pdf-pages.js';

/** A PDF laid out as Skia writes one: numbered objects, a one-section xref, trailer, startxref. */
function skiaLike(objects: string[], root: number): Buffer {
  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((dict, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${dict}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const at of offsets) body += `${String(at).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<</Size ${objects.length + 1}\n/Root ${root} 0 R\n/Info 1 0 R>>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

const TITLE_TRAP =
  '<</Title (/Type /Pages\\n/Count 999 /Type /Catalog /Pages 1 0 R)\n/Producer (Skia/PDF m156)>>';

describe('page count of a Chromium PDF', () => {
  it('reads the root of a nested page tree, not a subtree or the page title', () => {
    const pdf = skiaLike(
      [
        TITLE_TRAP,
        '<</Type /Page\n/Parent 4 0 R>>',
        '<</Type /Page\n/Parent 4 0 R>>',
        '<</Type /Pages\n/Count 2\n/Kids [2 0 R 3 0 R]\n/Parent 5 0 R>>',
        '<</Type /Pages\n/Count 11\n/Kids [4 0 R]>>',
        '<</Type /Catalog\n/Pages 5 0 R\n/ViewerPreferences <</Type /ViewerPreferences>>>>',
      ],
      6,
    );
    expect(skiaPageCount(pdf)).toBe(11);
  });

  it.each([
    ['a trailer that names no catalog', skiaLike([TITLE_TRAP, '<</Type /Pages\n/Count 1\n/Kids []>>'], 1)],
    ['a root that is not a catalog', skiaLike([TITLE_TRAP, '<</Type /Pages\n/Count 1\n/Kids []>>'], 2)],
    ['a cross-reference stream instead of a table', Buffer.from('%PDF-1.7\nstartxref\n9\n%%EOF\n')],
    ['a truncated file', skiaLike([TITLE_TRAP], 1).subarray(0, 40)],
    ['an empty file', Buffer.alloc(0)],
  ])('gives undefined for %s', (_, pdf) => {
    expect(skiaPageCount(pdf)).toBeUndefined();
  });
});
