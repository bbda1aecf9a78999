// Recognises office documents and text by their bytes: ZIP containers (OOXML by their content-types
// part or folder names, ODF by the `mimetype` entry the spec puts first), OLE2 compound files,
// RTF, and plain text as the last resort. Only the upload's first SNIFF_BYTES are available.
import { constants, inflateRawSync } from 'node:zlib';
import type { InputType } from '../tools/framework/types.js';

const ZIP_LOCAL_HEADER = 0x04034b50;
/** ZIP "general purpose" bit 3: sizes follow the data, so the next header cannot be found by size. */
const DATA_DESCRIPTOR_FLAG = 0x08;

interface ZipEntryHead {
  name: string;
  /** The entry's bytes as far as the head holds them, decompressed when deflated. */
  content: Buffer;
}

const LOCAL_HEADER_BYTES = Buffer.from('PK\u0003\u0004', 'latin1');

/**
 * Walks the local file headers present in `head`. Streaming writers (LibreOffice among them) set
 * the data-descriptor flag and leave sizes at 0; then the next entry is found by its signature,
 * which deflated data could only contain by a 1-in-4-billion chance.
 */
function zipEntries(head: Buffer): ZipEntryHead[] {
  const entries: ZipEntryHead[] = [];
  let at = 0;
  while (at >= 0 && at + 30 <= head.length && head.readUInt32LE(at) === ZIP_LOCAL_HEADER) {
    const flags = head.readUInt16LE(at + 6);
    const method = head.readUInt16LE(at + 8);
    const size = head.readUInt32LE(at + 18);
    const nameEnd = at + 30 + head.readUInt16LE(at + 26);
    if (nameEnd > head.length) break;
    const name = head.subarray(at + 30, nameEnd).toString('utf8');
    const dataStart = nameEnd + head.readUInt16LE(at + 28);
    const sized = (flags & DATA_DESCRIPTOR_FLAG) === 0 && size > 0;
    const next = sized ? dataStart + size : head.indexOf(LOCAL_HEADER_BYTES, dataStart);
    const dataEnd = Math.min(next < 0 ? head.length : next, head.length);
    const raw = head.subarray(Math.min(dataStart, head.length), dataEnd);
    entries.push({ name, content: method === 8 ? inflatePartial(raw) : raw });
    at = next;
  }
  return entries;
}

/** Inflates as much of a truncated deflate stream as is there (SYNC_FLUSH: no error at the cut). */
function inflatePartial(raw: Buffer): Buffer {
  try {
    return inflateRawSync(raw, { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    return Buffer.alloc(0);
  }
}

/** The main-part content types OOXML declares in [Content_Types].xml (ECMA-376 Part 1, §11–13). */
const OOXML_MAIN: readonly [RegExp, InputType][] = [
  [
    /wordprocessingml\.document\.main\+xml/,
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ],
  [/spreadsheetml\.sheet\.main\+xml/, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  [
    /presentationml\.presentation\.main\+xml/,
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ],
];
const OOXML_FOLDER: readonly [string, InputType][] = [
  ['word/', OOXML_MAIN[0]![1]],
  ['xl/', OOXML_MAIN[1]![1]],
  ['ppt/', OOXML_MAIN[2]![1]],
];
/** ODF 1.2 Part 3 §3.3: the first entry is `mimetype`, stored, holding the media type. */
const ODF_TYPES = new Set<InputType>([
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
]);

export function sniffZip(head: Buffer): InputType | undefined {
  const entries = zipEntries(head);
  if (entries.length === 0) return undefined;
  const first = entries[0]!;
  if (first.name === 'mimetype') {
    const type = first.content.toString('latin1').trim() as InputType;
    return ODF_TYPES.has(type) ? type : 'application/zip';
  }
  for (const entry of entries) {
    if (entry.name === '[Content_Types].xml') {
      const text = entry.content.toString('utf8');
      for (const [pattern, type] of OOXML_MAIN) if (pattern.test(text)) return type;
    }
    for (const [folder, type] of OOXML_FOLDER) if (entry.name.startsWith(folder)) return type;
  }
  return 'application/zip';
}

const CFB_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
/** Stream names (UTF-16LE in the directory) that identify the MS Office binary formats. */
const CFB_STREAMS: readonly [string, InputType][] = [
  ['WordDocument', 'application/msword'],
  ['Workbook', 'application/vnd.ms-excel'],
  ['Book', 'application/vnd.ms-excel'],
  ['PowerPoint Document', 'application/vnd.ms-powerpoint'],
];

/**
 * OLE2 compound files (doc, xls, ppt). The directory may lie beyond the head; then the kind stays
 * unknown (`application/x-ole-storage`) and LibreOffice's own detection decides.
 */
export function sniffCfb(head: Buffer): InputType | undefined {
  if (!head.subarray(0, 8).equals(CFB_SIGNATURE)) return undefined;
  for (const [name, type] of CFB_STREAMS) if (head.includes(Buffer.from(name, 'utf16le'))) return type;
  return 'application/x-ole-storage';
}

const HTML_START =
  /^(?:\s*<!--[\s\S]*?-->)*\s*<(?:!doctype\s+html|html|head|body|meta|title|style|link|script|div|p|h[1-6]|table)[\s>/]/i;
const CSV_DELIMITERS = [',', ';', '\t'] as const;

/** True when the head is UTF-8 text: no NUL, no stray control bytes, valid up to a cut character. */
function isText(head: Buffer): boolean {
  if (head.length === 0 || head.includes(0)) return false;
  const decoded = new TextDecoder('utf-8', { fatal: false }).decode(head);
  // U+FFFD anywhere but in the last 3 characters means invalid UTF-8, not a character cut at the end.
  if (decoded.slice(0, -3).includes('\ufffd')) return false;
  return !/[\u0001-\u0008\u000e-\u001a\u001c-\u001f]/.test(decoded);
}

/** CSV when at least two complete lines all hold the same (non-zero) number of one delimiter. */
function looksLikeCsv(text: string): boolean {
  const lines = text
    .split(/\r?\n/)
    .slice(0, -1)
    .filter((l) => l.length > 0)
    .slice(0, 20);
  if (lines.length < 2) return false;
  return CSV_DELIMITERS.some((d) => {
    const counts = lines.map((l) => l.split(d).length - 1);
    return counts[0]! > 0 && counts.every((c) => c === counts[0]);
  });
}

/** RTF, HTML, CSV or plain text; upload.ts refuses them for tools that do not accept text. */
export function sniffText(head: Buffer): InputType | undefined {
  if (head.subarray(0, 5).toString('latin1') === '{\\rtf') return 'application/rtf';
  if (!isText(head)) return undefined;
  const text = head.toString('utf8').replace(/^\ufeff/, '');
  if (HTML_START.test(text)) return 'text/html';
  return looksLikeCsv(text) ? 'text/csv' : 'text/plain';
}
