// Classic cross-reference tables of one subsection, as qpdf (without object streams) and Chromium's
// Skia write them (ISO 32000-2 §7.5.4, §7.5.5): enough to find a few objects of a file just written
// without parsing it. Anything else gives undefined and the caller asks a real parser.

/** Every entry is `nnnnnnnnnn ggggg n` plus a two-byte end of line. */
export const XREF_ENTRY_BYTES = 20;

/** The last `startxref N %%EOF` in a file's tail: N, and where the keyword starts in `tail`. */
export function startxrefOf(tail: string): { offset: number; index: number } | undefined {
  const end = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  return end ? { offset: Number(end[1]), index: end.index } : undefined;
}

/** The head `xref 0 N` at the start of `text`: its length in bytes and N. */
export function xrefHead(text: string): { length: number; count: number } | undefined {
  const head = /^xref\r?\n0 (\d+)\r?\n/.exec(text);
  return head ? { length: head[0].length, count: Number(head[1]) } : undefined;
}

/** The byte offset of an in-use entry; undefined for a free or malformed one. */
export function entryOffset(entry: string): number | undefined {
  const at = /^(\d{10}) \d{5} n/.exec(entry);
  return at ? Number(at[1]) : undefined;
}
