// Content sniffing for uploads and URL imports: the type comes from the bytes, never from the name or declared type.
// Hand-written rather than `file-type` because PDF's header may sit anywhere in the first 1024 bytes
// (ISO 32000-2 §7.5.2; real files carry prefixes), which file-type's offset-0 check refuses.

import type { InputType } from '../tools/framework/types.js';
import { sniffCfb, sniffText, sniffZip } from './sniff-office.js';

/**
 * How many leading bytes decide the type: enough for the first entries of an office ZIP
 * (OOXML's [Content_Types].xml is usually its first entry, ~1–3 KB deflated).
 */
export const SNIFF_BYTES = 8192;
/** ISO 32000-2 §7.5.2 tolerance for bytes before the PDF header, as readers apply it. */
const PDF_HEADER_WINDOW = 1024;

/**
 * A PDF whose `%PDF-` line is missing (cut or overwritten) still starts, after comments and
 * whitespace, with its first indirect object (`1 0 obj`, ISO 32000-2 §7.3.10) and soon closes it
 * with `endobj` (or opens a `stream`). qpdf repairs such a file and pdf.js opens it, so it must
 * reach the tools; text that happens to start like this is a PDF fragment, not a document.
 */
const PDF_FIRST_OBJECT = /^(?:\s*%[^\r\n]*[\r\n]+)*\s*\d{1,10}\s+\d{1,5}\s+obj\b/;
const PDF_OBJECT_END = /\bendobj\b|\bstream\r?\n/;

function looksLikePdf(head: Buffer): boolean {
  if (head.subarray(0, PDF_HEADER_WINDOW).includes('%PDF-')) return true;
  const text = head.toString('latin1');
  return PDF_FIRST_OBJECT.test(text.slice(0, PDF_HEADER_WINDOW)) && PDF_OBJECT_END.test(text);
}

export function sniffContentType(head: Buffer): InputType | undefined {
  if (looksLikePdf(head)) return 'application/pdf';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  const four = head.subarray(0, 4).toString('latin1');
  if (four === 'II*\u0000' || four === 'MM\u0000*') return 'image/tiff';
  if (four === 'GIF8') return 'image/gif';
  if (four === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (four === 'PK\u0003\u0004') return sniffZip(head);
  // Text is the fallback: only bytes that are nothing else may count as text.
  return sniffCfb(head) ?? sniffText(head);
}
