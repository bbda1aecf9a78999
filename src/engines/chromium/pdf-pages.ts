// The page count of a PDF that Chromium (Skia) just wrote, read from its own cross-reference table:
// saves a qpdf run per print. Anything not shaped like Skia's output gives undefined, and the caller
// asks qpdf instead.

/** Skia writes a classic `xref` table, a trailer naming the catalog, and uncompressed dictionaries. */
const TAIL_BYTES = 1024;
const XREF_ENTRY_BYTES = 20;

/** Byte offset of object `num` from the xref table at `xrefAt` (one subsection starting at 0). */
function objectOffset(pdf: string, xrefAt: number, num: number): number | undefined {
  const header = /^xref\r?\n0 (\d+)\r?\n/.exec(pdf.slice(xrefAt, xrefAt + 32));
  if (!header || num >= Number(header[1])) return undefined;
  const entryAt = xrefAt + header[0].length + num * XREF_ENTRY_BYTES;
  const entry = /^(\d{10}) \d{5} n/.exec(pdf.slice(entryAt, entryAt + XREF_ENTRY_BYTES));
  return entry ? Number(entry[1]) : undefined;
}

/** The dictionary of object `num` (up to its first `>>`, enough for the keys read here). */
function objectDict(pdf: string, xrefAt: number, num: number): string | undefined {
  const at = objectOffset(pdf, xrefAt, num);
  if (at === undefined) return undefined;
  const head = `${num} 0 obj`;
  if (pdf.slice(at, at + head.length) !== head) return undefined;
  const end = pdf.indexOf('>>', at);
  return end < 0 ? undefined : pdf.slice(at + head.length, end);
}

/** Pages in `pdf` per its catalog's page tree root, or undefined if the file is not as expected. */
export function skiaPageCount(bytes: Buffer): number | undefined {
  const tail = bytes.subarray(Math.max(0, bytes.length - TAIL_BYTES)).toString('latin1');
  const root = /trailer\s*<<[^>]*\/Root (\d+) 0 R/.exec(tail)?.[1];
  const xref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail)?.[1];
  if (root === undefined || xref === undefined) return undefined;
  // latin1 keeps one character per byte, so string offsets are byte offsets.
  const pdf = bytes.toString('latin1');
  const xrefAt = Number(xref);
  const catalog = objectDict(pdf, xrefAt, Number(root));
  const pagesRef = catalog ? /^\s*<<\/Type \/Catalog\s+\/Pages (\d+) 0 R/.exec(catalog)?.[1] : undefined;
  if (pagesRef === undefined) return undefined;
  const pages = objectDict(pdf, xrefAt, Number(pagesRef));
  const count = pages ? /^\s*<<\/Type \/Pages\s+\/Count (\d+)\s/.exec(pages)?.[1] : undefined;
  return count === undefined ? undefined : Number(count);
}
