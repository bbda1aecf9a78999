// `ocr: auto` of pdf-to-markdown: which selected pages have no text layer (pdftotext finds almost
// nothing on them), read in runs of pages so a long document is never held whole, and the OCR pass
// that gives those pages one before the conversion.
import type { EngineCallOptions } from '../../engines/call-options.js';
import type { Engines } from '../../engines/index.js';
import { pageRuns } from '../framework/page-selection.js';
import { checkOcrPdfPixels } from '../shared/page-pixels.js';

/** Pages per pdftotext run, as extract-text reads them. */
const PAGES_PER_RUN = 25;
/**
 * Fewer letters and digits than this and a page counts as having no text layer: a scan carries at
 * most a stray page number or a few characters of a stamp, a page of text hundreds.
 */
const MIN_CHARACTERS = 16;

/** The pages of `pages` (from 1) without a text layer. */
export async function pagesWithoutText(
  poppler: Engines['poppler'],
  input: string,
  pages: readonly number[],
  call: EngineCallOptions,
): Promise<number[]> {
  const wanted = new Set(pages);
  const empty: number[] = [];
  for (const run of pageRuns(pages, PAGES_PER_RUN)) {
    const text = await poppler.text(input, { firstPage: run.first, lastPage: run.last }, call);
    const texts = text.split('\f');
    for (let page = run.first; page <= run.last; page++) {
      const letters = (texts[page - run.first] ?? '').replace(/[^\p{L}\p{N}]/gu, '').length;
      if (wanted.has(page) && letters < MIN_CHARACTERS) empty.push(page);
    }
  }
  return empty;
}

/**
 * OCRs the pages that have no text (ocrmypdf `skip-text` leaves pages with text as they are) into
 * `output`, after the same pixel checks as the `ocr` tool.
 */
export async function recogniseText(
  engines: Engines,
  input: string,
  output: string,
  o: { languages: string[]; pageCount: number },
  call: EngineCallOptions,
): Promise<void> {
  await checkOcrPdfPixels(engines.poppler, input, o.pageCount, call);
  await engines.ocrmypdf.ocr(
    input,
    output,
    { languages: o.languages, mode: 'skip-text', deskew: false, rotatePages: false, imageInput: false },
    o.pageCount,
    call,
  );
}
