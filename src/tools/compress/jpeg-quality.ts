// The quality a JPEG was saved at, estimated from its luminance quantisation table against libjpeg's
// standard one (the estimate ImageMagick's `identify -format %Q` makes), read from the header alone.

/** ITU T.81 Annex K table K.1 (only its sum is used, so the order does not matter). */
const STANDARD_LUMINANCE = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22,
  29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103,
  121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const STANDARD_SUM = STANDARD_LUMINANCE.reduce((a, b) => a + b, 0);

/** Table 0 of the first DQT segment before the image data. */
function luminanceTable(jpeg: Buffer): number[] | undefined {
  let at = 2; // after SOI
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff) {
    const marker = jpeg[at + 1]!;
    const length = jpeg.readUInt16BE(at + 2);
    if (marker === 0xda) return undefined; // start of scan: no table before the data
    if (marker === 0xdb && at + 5 + 64 <= jpeg.length) {
      const precision16 = jpeg[at + 4]! >> 4 === 1;
      const id = jpeg[at + 4]! & 0x0f;
      if (id !== 0) return undefined;
      const start = at + 5;
      return Array.from({ length: 64 }, (_, i) =>
        precision16 ? jpeg.readUInt16BE(start + 2 * i) : jpeg[start + i]!,
      );
    }
    at += 2 + length;
  }
  return undefined;
}

/**
 * libjpeg's quality (1–100) whose scaled standard table is closest to this JPEG's, or undefined for
 * a JPEG without a readable table (it is then re-encoded and judged by its size).
 */
export function estimateJpegQuality(jpeg: Buffer): number | undefined {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return undefined;
  const table = luminanceTable(jpeg);
  if (!table) return undefined;
  // libjpeg scales the standard table by `scale` percent: q < 50 → 5000 / q, else 200 − 2q.
  const scale = (100 * table.reduce((a, b) => a + b, 0)) / STANDARD_SUM;
  const quality = scale <= 100 ? (200 - scale) / 2 : 5000 / scale;
  return Math.min(100, Math.max(1, Math.round(quality)));
}
