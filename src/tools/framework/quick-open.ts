// The in-process opening of a small, clean PDF: its page count without starting qpdf, for an early
// run that asks for its counts (`inputs.early`, `openedPages` in inputs.ts); anything doubtful is
// left to the qpdf opening (opening.ts), and so is any input the tool's qpdf run complains about.
import { readFileSync } from 'node:fs';
import { ParseSpeeds, PDFDocument } from 'pdf-lib';

/**
 * Up to this size parsing in-process (≈ 0.5–2 ms) costs less than a qpdf process (a fork of the
 * server, an exec and ≈ 3 ms of qpdf's CPU); past it pdf-lib's parse grows to tens of ms per MB.
 */
export const QUICK_OPEN_MAX_BYTES = 64 * 1024;

/**
 * Object streams are the only thing pdf-lib inflates while loading: 64 KiB of Flate can inflate a
 * thousandfold in the server's process, so a file holding one (or a name spelled with #-escapes,
 * which could spell `/ObjStm` past this check) goes to qpdf, whose memory is capped.
 */
const INFLATES_ON_LOAD = /\/ObjStm|\/[^\s/<>[\]()%]*#[0-9a-fA-F]{2}/;

/**
 * The page count of `file` when it is small, unencrypted and consistent: the page tree walks to at
 * least one page and to exactly the root's /Count (a file where they differ needs qpdf's repair).
 * Undefined means "open it with qpdf"; it never throws for a bad file.
 */
export async function quickPageCount(file: string, size: number): Promise<number | undefined> {
  if (size > QUICK_OPEN_MAX_BYTES) return undefined;
  try {
    // Read on this thread: at most 64 KiB from the page cache, cheaper than four thread-pool trips.
    const bytes = readFileSync(file);
    const text = bytes.toString('latin1');
    if (bytes.length > QUICK_OPEN_MAX_BYTES || INFLATES_ON_LOAD.test(text) || !xrefFound(text)) {
      return undefined;
    }
    const doc = await PDFDocument.load(bytes, {
      ignoreEncryption: true,
      updateMetadata: false,
      throwOnInvalidObject: true,
      // Parse in one go: the default yields to the event loop every 100 objects via timers.
      parseSpeed: ParseSpeeds.Fastest,
    });
    if (doc.isEncrypted) return undefined;
    const walked = doc.getPageCount();
    const declared = doc.catalog.Pages().Count().asNumber();
    return walked >= 1 && walked === declared ? walked : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the last `startxref` points at an xref table or an xref stream's object. pdf-lib never
 * reads the xref (it scans the objects), so without this a file qpdf must reconstruct would pass
 * here and only be caught by the tool's own qpdf run, after a wasted run.
 */
function xrefFound(text: string): boolean {
  const at = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(text.slice(-1024))?.[1];
  if (at === undefined) return false;
  return /^(xref|\d+\s+\d+\s+obj)/.test(text.slice(Number(at), Number(at) + 32));
}
