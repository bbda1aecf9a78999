// Generates hostile PDF inputs byte by byte (never downloaded): each variant is a small, readable
// recipe of objects plus the xref/trailer shape it breaks, so a test names exactly what it attacks.

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** One indirect object: its number and its body (what sits between `N 0 obj` and `endobj`). */
export interface PdfObject {
  num: number;
  body: string | Buffer;
}

export interface BuildOptions {
  /** Trailer dictionary entries besides /Size (e.g. `/Root 1 0 R`). */
  trailer?: string;
  /** Leave /Size out of the trailer. */
  noSize?: boolean;
  /** Leave the `%PDF-` header line out. */
  noHeader?: boolean;
  /** Rewrites xref offsets: (object number, true offset) → offset written. */
  offset?: (num: number, offset: number) => number;
  /** Written after the objects, before the xref (e.g. a second copy of an object). */
  extra?: string;
}

const HEADER = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';

/** A whole file: header, objects in order, a classic xref table, trailer, startxref, %%EOF. */
export function buildPdf(objects: readonly PdfObject[], options: BuildOptions = {}): Buffer {
  const parts: Buffer[] = [];
  let length = 0;
  const push = (chunk: string | Buffer) => {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    parts.push(b);
    length += b.length;
  };
  // Without the header line a binary-marker comment still leads, as in files whose header was cut.
  push(options.noHeader ? HEADER.slice(HEADER.indexOf('\n') + 1) : HEADER);
  const offsets = new Map<number, number>();
  for (const object of objects) {
    offsets.set(object.num, length);
    push(`${object.num} 0 obj\n`);
    push(object.body);
    push('\nendobj\n');
  }
  if (options.extra) push(options.extra);
  const size = Math.max(0, ...objects.map((o) => o.num)) + 1;
  const xref = length;
  let table = `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let num = 1; num < size; num++) {
    const at = offsets.get(num);
    const written = at === undefined ? 0 : (options.offset?.(num, at) ?? at);
    table += at === undefined ? '0000000000 00000 f \n' : `${String(written).padStart(10, '0')} 00000 n \n`;
  }
  push(table);
  const sizeEntry = options.noSize ? '' : `/Size ${size} `;
  push(`trailer\n<< ${sizeEntry}${options.trailer ?? '/Root 1 0 R'} >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** A content stream with a correct /Length. */
export function stream(dict: string, data: string | Buffer): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
  return Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${bytes.length} >>\nstream\n`, 'latin1'),
    bytes,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

const TEXT = 'BT /F1 24 Tf 72 720 Td (Hostile input) Tj ET';
const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** Catalog 1, pages 2, page 3 (with `pageExtra`), content 4, font 5: the healthy baseline. */
function onePage(
  pageExtra = '',
  catalogExtra = '',
  pagesExtra = '/Kids [3 0 R] /Count 1',
  mediaBox = '[0 0 612 792]',
): PdfObject[] {
  return [
    { num: 1, body: `<< /Type /Catalog /Pages 2 0 R ${catalogExtra} >>` },
    { num: 2, body: `<< /Type /Pages ${pagesExtra} >>` },
    {
      num: 3,
      body: `<< /Type /Page /Parent 2 0 R /MediaBox ${mediaBox} /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R ${pageExtra} >>`,
    },
    { num: 4, body: stream('', TEXT) },
    { num: 5, body: FONT },
  ];
}

/** A healthy one-page PDF (the control case of the suite). */
export const healthy = () => buildPdf(onePage());

/** A one-page PDF with one text annotation and one form field (for flatten/merge companions). */
export function withAnnotations(): Buffer {
  const objects = onePage('/Annots [6 0 R 7 0 R]', '/AcroForm << /Fields [7 0 R] /NeedAppearances true >>');
  objects.push(
    { num: 6, body: '<< /Type /Annot /Subtype /Text /Rect [100 100 120 120] /Contents (note) >>' },
    {
      num: 7,
      body: '<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /V (value) /Rect [100 200 300 220] /P 3 0 R /DA (/Helv 12 Tf 0 g) >>',
    },
  );
  return buildPdf(objects);
}

/**
 * Every variant of the suite: a name (the test title) and its bytes. Attack numbers refer to
 * issue 14; the others are designed around the same parsers' weak points.
 */
export const hostileVariants: Record<string, () => Buffer> = {
  // Attack 7: the page tree's /Kids names its own parent (a loop qpdf and poppler must not follow).
  'kids-contains-parent': () =>
    buildPdf([
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>' },
      ...onePage().slice(2),
      { num: 6, body: '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>' },
    ]),
  // Attack 7: /Count far above the real page count, and negative.
  'count-two-billion': () => buildPdf(onePage('', '', '/Kids [3 0 R] /Count 2000000000')),
  'count-negative': () => buildPdf(onePage('', '', '/Kids [3 0 R] /Count -5')),
  // Attack 7: a readable file whose trailer has no /Size.
  'trailer-without-size': () => buildPdf(onePage(), { noSize: true }),
  // Attack 12: the outline's /Next chain returns to its first item.
  'outline-next-cycle': () =>
    buildPdf([
      ...onePage('', '/Outlines 6 0 R'),
      { num: 6, body: '<< /Type /Outlines /First 7 0 R /Last 8 0 R /Count 2 >>' },
      { num: 7, body: '<< /Title (One) /Parent 6 0 R /Next 8 0 R /Dest [3 0 R /Fit] >>' },
      { num: 8, body: '<< /Title (Two) /Parent 6 0 R /Next 7 0 R /Prev 7 0 R /Dest [3 0 R /Fit] >>' },
    ]),
  // Attack 12 (also): an outline item whose /First is its own ancestor.
  'outline-first-cycle': () =>
    buildPdf([
      ...onePage('', '/Outlines 6 0 R'),
      { num: 6, body: '<< /Type /Outlines /First 7 0 R /Last 7 0 R /Count 1 >>' },
      {
        num: 7,
        body: '<< /Title (Loop) /Parent 6 0 R /First 6 0 R /Last 6 0 R /Count 1 /Dest [3 0 R /Fit] >>',
      },
    ]),
  // Attack 12: everything a PDF has except the `%PDF-` header.
  'missing-header': () => buildPdf(onePage(), { noHeader: true }),
  'xref-past-eof': () => buildPdf(onePage(), { offset: (num, at) => (num === 3 ? at + 10_000_000 : at) }),
  'xref-offsets-shifted': () => buildPdf(onePage(), { offset: (_num, at) => at + 7 }),
  'length-lie-long': () =>
    buildPdf([
      ...onePage().slice(0, 3),
      { num: 4, body: `<< /Length 999999 >>\nstream\n${TEXT}\nendstream` },
      onePage()[4]!,
    ]),
  'length-lie-short': () =>
    buildPdf([
      ...onePage().slice(0, 3),
      { num: 4, body: `<< /Length 3 >>\nstream\n${TEXT}\nendstream` },
      onePage()[4]!,
    ]),
  'huge-mediabox': () => buildPdf(onePage('', '', undefined, '[0 0 14400000 14400000]')),
  'negative-rotate': () => buildPdf(onePage('/Rotate -450')),
  'kids-not-array': () => buildPdf(onePage('', '', '/Kids 3 0 R /Count 1')),
  'duplicate-object-numbers': () =>
    buildPdf(onePage(), {
      extra: '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Contents 3 0 R >>\nendobj\n',
    }),
  'names-tree-loop': () =>
    buildPdf([
      ...onePage('', '/Names << /Dests 6 0 R >>'),
      { num: 6, body: '<< /Kids [7 0 R] >>' },
      { num: 7, body: '<< /Kids [6 0 R] /Limits [(a) (z)] >>' },
    ]),
  'jbig2-globals-missing': () =>
    buildPdf([
      ...onePage('').map((o) =>
        o.num === 3
          ? { ...o, body: String(o.body).replace('/Resources <<', '/Resources << /XObject << /Im1 6 0 R >>') }
          : o.num === 4
            ? { ...o, body: stream('', `${TEXT} q 100 0 0 100 72 300 cm /Im1 Do Q`) }
            : o,
      ),
      {
        num: 6,
        body: stream(
          '/Type /XObject /Subtype /Image /Width 64 /Height 64 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter /JBIG2Decode /DecodeParms << /JBIG2Globals 99 0 R >>',
          Buffer.alloc(40, 0x5a),
        ),
      },
    ]),
  'inline-image-absurd-size': () =>
    buildPdf([
      ...onePage().slice(0, 3),
      {
        num: 4,
        body: stream(
          '',
          `${TEXT} q 100 0 0 100 72 300 cm BI /W 2000000000 /H 2000000000 /BPC 8 /CS /RGB ID \x00\x00\x00 EI Q`,
        ),
      },
      onePage()[4]!,
    ]),
  'object-stream-cycle': () =>
    buildPdf([
      ...onePage(),
      // An object stream whose /Extends names itself, holding an object that points back into it.
      { num: 6, body: stream('/Type /ObjStm /N 1 /First 5 /Extends 6 0 R', '7 0 << /Self 6 0 R >>') },
    ]),
  'page-tree-depth-10000': () => deepTree(10_000),
};

/** A single page under `depth` nested /Pages nodes. */
function deepTree(depth: number): Buffer {
  const objects: PdfObject[] = [{ num: 1, body: '<< /Type /Catalog /Pages 10 0 R >>' }];
  objects.push(
    ...onePage()
      .slice(2)
      .map((o) =>
        o.num === 3 ? { ...o, body: String(o.body).replace('/Parent 2 0 R', `/Parent ${9 + depth} 0 R`) } : o,
      ),
  );
  for (let level = 0; level < depth; level++) {
    const num = 10 + level;
    const kid = level === depth - 1 ? 3 : num + 1;
    const parent = level === 0 ? '' : `/Parent ${num - 1} 0 R`;
    objects.push({ num, body: `<< /Type /Pages ${parent} /Kids [${kid} 0 R] /Count 1 >>` });
  }
  return buildPdf(objects);
}

/** A PNG header claiming `width`×`height` with a tiny body (a decompression/pixel bomb). */
export function pngBomb(width: number, height: number): Buffer {
  const crc = (bytes: Buffer) => {
    let c = ~0;
    for (const byte of bytes) {
      c ^= byte;
      for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    }
    return (~c >>> 0) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A one-page PDF whose page draws one image XObject claiming `width`×`height` pixels. */
export function pdfImageBomb(width: number, height: number): Buffer {
  return buildPdf([
    { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    {
      num: 3,
      body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>',
    },
    { num: 4, body: stream('', 'q 612 0 0 792 0 0 cm /Im1 Do Q') },
    {
      num: 5,
      body: stream(
        `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /FlateDecode`,
        Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]),
      ),
    },
  ]);
}

/** Bump when the shape of the many-objects file changes, so a stale cache is never reused. */
const MANY_OBJECTS_VERSION = 2;
export const MANY_OBJECTS = 1_500_000;

/**
 * A ~90 MB PDF with `MANY_OBJECTS` tiny objects in its xref table, written with streamed writes and
 * cached under os.tmpdir() so it is built once per machine. Only the first few are reachable from
 * the catalog: every object is still listed by a whole-file dump (`qpdf --json-output`, what
 * flatten used to parse), while qpdf's own rewrites skip the dead ones, so the file measures the
 * service's process rather than qpdf's writer.
 */
export async function manyObjectsPdf(count = MANY_OBJECTS): Promise<string> {
  const dir = path.join(os.tmpdir(), 'quire-hostile-pdf');
  const file = path.join(dir, `many-objects-v${MANY_OBJECTS_VERSION}-${count}.pdf`);
  if (
    await stat(file).then(
      () => true,
      () => false,
    )
  )
    return file;
  await mkdir(dir, { recursive: true });
  const partial = `${file}.${process.pid}.part`;
  const out = createWriteStream(partial);
  let length = 0;
  const offsets: number[] = [];
  const write = async (text: string) => {
    length += Buffer.byteLength(text, 'latin1');
    if (!out.write(text, 'latin1')) await once(out, 'drain');
  };
  const first = 6;
  const last = first + count - 1;
  const fixed = onePage('/Annots [6 0 R]');
  for (const object of fixed) {
    offsets[object.num] = length + (object.num === 1 ? HEADER.length : 0);
    if (object.num === 1) await write(HEADER);
    await write(`${object.num} 0 obj\n${object.body}\nendobj\n`);
  }
  offsets[first] = length;
  await write(
    `${first} 0 obj\n<< /Type /Annot /Subtype /Text /Rect [10 10 20 20] /Contents (n) >>\nendobj\n`,
  );
  let batch = '';
  for (let num = first + 1; num <= last; num++) {
    offsets[num] = length + Buffer.byteLength(batch, 'latin1');
    batch += `${num} 0 obj\n<< /N ${num} /Next ${num < last ? num + 1 : first} 0 R >>\nendobj\n`;
    if (batch.length > 1 << 20) {
      await write(batch);
      batch = '';
    }
  }
  await write(batch);
  const xref = length;
  await write(`xref\n0 ${last + 1}\n0000000000 65535 f \n`);
  batch = '';
  for (let num = 1; num <= last; num++) {
    batch += `${String(offsets[num]).padStart(10, '0')} 00000 n \n`;
    if (batch.length > 1 << 20) {
      await write(batch);
      batch = '';
    }
  }
  await write(batch);
  await write(`trailer\n<< /Size ${last + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  out.end();
  await once(out, 'close');
  await rename(partial, file);
  return file;
}

/** Writes `bytes` as `name` under `dir` and returns the path. */
export async function writeVariant(dir: string, name: string, bytes: Buffer): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  return file;
}
