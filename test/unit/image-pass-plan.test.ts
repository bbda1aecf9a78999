// Which images compress's image pass takes on, from `pdfimages -list` rows alone: JPEG-dominated
// files only, never masks, bilevel, CMYK or inline images, at the highest resolution each is placed;
// and the quality a JPEG was saved at, which decides whether re-encoding it can gain.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { ImageEntry } from '../../src/engines/poppler/poppler.js';
import { planImagePass } from '../../src/tools/compress/image-plan.js';
import { estimateJpegQuality } from '../../src/tools/compress/jpeg-quality.js';

const KB = 1024;

function row(overrides: Partial<ImageEntry>): ImageEntry {
  return {
    page: 1,
    type: 'image',
    width: 2550,
    height: 3300,
    object: '7 0',
    color: 'rgb',
    components: 3,
    bpc: 8,
    encoding: 'jpeg',
    xPpi: 300,
    yPpi: 300,
    bytes: 900 * KB,
    ...overrides,
  };
}

describe('planImagePass', () => {
  it('takes the JPEGs of a file they dominate, once per object, at their highest placed resolution', () => {
    const rows = [
      row({ xPpi: 150, yPpi: 150 }),
      row({ page: 2, xPpi: 300, yPpi: 310 }),
      row({ object: '9 0', color: 'gray', components: 1 }),
    ];
    expect(planImagePass(rows, 2000 * KB)).toEqual([
      { object: '7 0', ppi: 300, components: 3 },
      { object: '9 0', ppi: 300, components: 1 },
    ]);
  });

  it.each([
    ['a bilevel CCITT scan', { encoding: 'ccitt', bpc: 1, color: 'gray', components: 1 }],
    ['a JBIG2 scan', { encoding: 'jbig2', bpc: 1, color: 'gray', components: 1 }],
    ['a CMYK JPEG', { color: 'cmyk', components: 4 }],
    ['a JPEG 2000 image', { encoding: 'jpx' }],
    ['a Flate image', { encoding: 'image' }],
    ['an indexed image', { color: 'index', components: 1 }],
    ['an inline image', { object: '0 0' }],
    ['a soft mask', { type: 'smask', color: 'gray', components: 1 }],
  ])('leaves %s alone', (_label, overrides) => {
    expect(planImagePass([row(overrides)], 1000 * KB)).toBeUndefined();
  });

  it('never touches an object that is also placed as a mask', () => {
    const rows = [row({}), row({ page: 2, type: 'smask', color: 'gray', components: 1 })];
    expect(planImagePass(rows, 1000 * KB)).toBeUndefined();
  });

  it('declines when the JPEGs hold less than half the file', () => {
    expect(planImagePass([row({ bytes: 400 * KB })], 1000 * KB)).toBeUndefined();
    expect(planImagePass([row({ bytes: 500 * KB })], 1000 * KB)).toEqual([
      { object: '7 0', ppi: 300, components: 3 },
    ]);
  });

  it('declines a file without images', () => {
    expect(planImagePass([], 1000 * KB)).toBeUndefined();
  });
});

describe('estimateJpegQuality', () => {
  it.each([30, 50, 60, 75, 92])('reads quality %i back from what libjpeg wrote', async (quality) => {
    const jpeg = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#777' } })
      .jpeg({ quality })
      .toBuffer();
    expect(estimateJpegQuality(jpeg)).toBe(quality);
  });

  it('has no answer for bytes that are not a JPEG', () => {
    expect(estimateJpegQuality(Buffer.from('%PDF-1.7'))).toBeUndefined();
  });
});
