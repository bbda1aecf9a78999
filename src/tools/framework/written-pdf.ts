// What an incremental update needs from a file qpdf has just written without object streams (a
// classic xref table, one subsection, 20-byte entries): the trailer, the catalog and the page list.
// Only those few objects are read, at the offsets the xref gives, each bounded by JSON_MAX_BYTES.
// The reads run on this thread: the file was just written, so they come from the page cache in µs,
// where each of the dozen small reads through the thread pool cost a round trip.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { entryOffset, startxrefOf, XREF_ENTRY_BYTES, xrefHead } from '../../engines/classic-xref.js';
import { JSON_MAX_BYTES } from '../../engines/qpdf/qpdf.js';
import { QuireError } from '../../errors/quire-error.js';
import { dictEntries } from './pdf-dict.js';

export interface WrittenPdf {
  /** File length: where an update starts. */
  length: number;
  /** Offset of the xref table (the update's /Prev). */
  startxref: number;
  /** Trailer /Size: the first free object number. */
  size: number;
  /** Catalog reference, e.g. `1 0 R`. */
  root: string;
  /** The catalog's dictionary as written (latin1, byte for byte). */
  catalog: string;
  /** Trailer /ID as written (`[<…><…>]`), if any. */
  id?: string;
  /** Page references in page order. */
  pages: string[];
}

const TAIL_BYTES = 4096;

function notAsWritten(what: string): QuireError {
  return new QuireError('engine_failed', `The merged file is not laid out as qpdf writes it (${what})`);
}

/** An open file's descriptor. */
type Fd = number;

function readAt(file: Fd, position: number, length: number): string {
  const buffer = Buffer.allocUnsafe(length);
  const bytesRead = readSync(file, buffer, 0, length, position);
  return buffer.toString('latin1', 0, bytesRead);
}

/** The body of `ref`, whose bytes run from `offset` to `next` (qpdf writes objects in number order). */
function objectAt(file: Fd, ref: string, offset: number, next: number): string {
  if (next <= offset) throw notAsWritten(`object ${ref}`);
  if (next - offset > JSON_MAX_BYTES) {
    throw new QuireError('engine_memory_exceeded', 'The merged page list is too large to read', {
      extras: { limit_bytes: JSON_MAX_BYTES },
    });
  }
  const text = readAt(file, offset, next - offset);
  const [num, gen] = ref.split(' ');
  const body = new RegExp(`^${num} ${gen} obj\\s([^]*)\\sendobj\\s*$`).exec(text);
  if (!body) throw notAsWritten(`object ${ref}`);
  return body[1]!.trim();
}

function entry(entries: ReturnType<typeof dictEntries>, key: string): string | undefined {
  return entries.find((e) => e.key === key)?.value;
}

/** Reads `pdf`'s layout; `expectedPages` guards against a page tree that is not one flat /Kids. */
export async function readWrittenPdf(pdf: string, expectedPages: number): Promise<WrittenPdf> {
  const file = openSync(pdf, 'r');
  try {
    return layout(file, expectedPages);
  } catch (error) {
    throw error instanceof QuireError ? error : notAsWritten((error as Error).message);
  } finally {
    closeSync(file);
  }
}

function layout(file: Fd, expectedPages: number): WrittenPdf {
  const { size: length } = fstatSync(file);
  const tail = readAt(file, Math.max(0, length - TAIL_BYTES), Math.min(length, TAIL_BYTES));
  const end = startxrefOf(tail);
  const trailerAt = tail.lastIndexOf('trailer');
  if (!end || trailerAt < 0) throw notAsWritten('trailer');
  const trailer = dictEntries(tail.slice(trailerAt + 'trailer'.length, end.index));
  const root = entry(trailer, '/Root');
  const size = Number(entry(trailer, '/Size'));
  if (!root || !/^\d+ \d+ R$/.test(root) || !Number.isSafeInteger(size)) throw notAsWritten('trailer');
  if (entry(trailer, '/Prev') || entry(trailer, '/Encrypt')) throw notAsWritten('updated or encrypted');

  const startxref = end.offset;
  const head = xrefHead(readAt(file, startxref, 32));
  if (!head || head.count !== size) throw notAsWritten('xref table');
  const offsetOf = (num: number) => {
    if (num === size) return startxref;
    const at = entryOffset(readAt(file, startxref + head.length + num * XREF_ENTRY_BYTES, XREF_ENTRY_BYTES));
    if (at === undefined) throw notAsWritten(`xref entry ${num}`);
    return at;
  };
  const object = (ref: string) => {
    const num = Number(ref.split(' ')[0]);
    if (num < 1 || num >= size) throw notAsWritten(`object ${ref}`);
    return objectAt(file, ref, offsetOf(num), offsetOf(num + 1));
  };

  const catalog = object(root);
  const pagesRef = entry(dictEntries(catalog), '/Pages');
  if (!pagesRef || !/^\d+ \d+ R$/.test(pagesRef)) throw notAsWritten('catalog');
  const tree = dictEntries(object(pagesRef));
  const kids = /^\[([\d\sR]*)\]$/.exec(entry(tree, '/Kids') ?? '');
  const pages = kids?.[1]?.match(/\d+\s+\d+\s+R/g)?.map((ref) => ref.replace(/\s+/g, ' ')) ?? [];
  if (pages.length !== expectedPages || Number(entry(tree, '/Count')) !== expectedPages) {
    throw notAsWritten('page tree');
  }
  const id = entry(trailer, '/ID');
  return { length, startxref, size, root, catalog, pages, ...(id ? { id } : {}) };
}

/**
 * The page count of a copy qpdf has just rewritten from a damaged file, when it is checked here
 * without another qpdf run: laid out as readWrittenPdf reads it (classic xref, a trailer with /Size
 * and without /Encrypt) with one flat page tree of `pages` pages. Undefined otherwise (object
 * streams, a nested tree, no /Size): the caller then repairs the file the longer way.
 */
export async function rewrittenCopyPages(pdf: string, pages: number): Promise<number | undefined> {
  try {
    return (await readWrittenPdf(pdf, pages)).pages.length;
  } catch {
    return undefined;
  }
}
