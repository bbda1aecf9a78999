// Display names of files (inputs, results, ZIP entries): what a person sees in a listing, so nothing
// in them may move, hide or reorder what is shown.

/**
 * Control characters (C0, DEL, C1), format characters (the bidi embeddings, overrides and isolates
 * that turn `invoice‮fdp.exe` into `invoiceexe.pdf` on screen, zero-width spaces and joiners, the BOM,
 * soft hyphens) and line and paragraph separators: Unicode general categories Cc and Cf plus
 * U+2028/U+2029.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** Without path parts and hidden characters, trimmed, at most 200 characters; `fallback` if empty. */
export function displayFileName(given: string | undefined, fallback: string): string {
  const base = (given ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base.replace(HIDDEN, '').trim().slice(0, 200);
  return clean === '' ? fallback : clean;
}
