// The page count of a PDF that Chromium (Skia) just wrote, read from its own cross-reference table:
// saves a qpdf run per print. Anything not shaped like Skia's output gives undefined, and the caller
// asks qpdf instead.
import { entryOffset, startxrefOf, XREF_ENTRY_BYTES, xrefHead } from '../classic-xref.js';

/** Skia writes a classic `xref` table, a trailer naming the catalog, and uncompressed dictionaries. */
const TAIL_BYTES = 1024;

/** Byte offset of object `num` from the xref table at `xrefAt` (one subsection starting at 0). */
function objectOffset(pdf: Buffer, xrefAt: number, num: number): number | undefined {
  const head = xrefHead(pdf.toString('latin1', xrefAt, xrefAt + 32));
  if (!head || num >= head.count) return undefined;
  const entryAt = xrefAt + head.length + num * XREF_ENTRY_BYTES;
  return entryOffset(pdf.toString('latin1', entryAt, entryAt + XREF_ENTRY_BYTES));
}

/** The dictionary of object `num` (up to its first `>>`, enough for the keys read here). */
function objectDict(pdf: Buffer, xrefAt: number, num: number): string | undefined {
  const at = objectOffset(pdf, xrefAt, num);
  if (at === undefined) return undefined;
  const head = `${num} 0 obj`;
  if (pdf.toString('latin1', at, at + head.length) !== head) return undefined;
  const end = pdf.indexOf('>>', at, 'latin1');
  return end < 0 ? undefined : pdf.toString('latin1', at + head.length, end);
}

/** Pages in `pdf` per its catalog's page tree root, or undefined if the file is not as expected. */
export function skiaPageCount(bytes: Buffer): number | undefined {
  const tail = bytes.toString('latin1', Math.max(0, bytes.length - TAIL_BYTES));
  const root = /trailer\s*<<[^>]*\/Root (\d+) 0 R/.exec(tail)?.[1];
  const xref = startxrefOf(tail);
  if (root === undefined || xref === undefined) return undefined;
  // Only the few byte ranges read are turned into text (latin1: one character per byte), never the
  // whole print.
  const catalog = objectDict(bytes, xref.offset, Number(root));
  const pagesRef = catalog ? /^\s*<<\/Type \/Catalog\s+\/Pages (\d+) 0 R/.exec(catalog)?.[1] : undefined;
  if (pagesRef === undefined) return undefined;
  const pages = objectDict(bytes, xref.offset, Number(pagesRef));
  const count = pages ? /^\s*<<\/Type \/Pages\s+\/Count (\d+)\s/.exec(pages)?.[1] : undefined;
  return count === undefined ? undefined : Number(count);
}
