// The one page-selection syntax of the catalogue ("1-3,7,10-z", z = last page, rN = N-th page from
// the end): a schema for request validation and a resolver against a document's page count.
//
// Decisions (tools.md leaves them open):
// - A range may run backwards: "5-1" is 5,4,3,2,1, in that order (qpdf's own syntax agrees), so
//   tools that care about order (split ranges, merge pages_per_file) can reverse pages.
// - Repeats are kept by `resolvePageList` (the `pages` tool may repeat pages); tools that treat a
//   selection as a set (rotate) use `resolvePageSet`.
// - Pages count from 1; "0" and "r0" are malformed. Letters are case-insensitive; blanks around
//   numbers, dashes and commas are ignored.
import { Type } from '@sinclair/typebox';
import { QuireError } from '../../errors/quire-error.js';

const PAGE = '(?:[1-9][0-9]*|[zZ]|[rR][1-9][0-9]*)';
const ITEM = `${PAGE}(?:\\s*-\\s*${PAGE})?`;
/** JSON Schema pattern of a well-formed selection; the empty string means all pages. */
export const PAGE_SELECTION_PATTERN = `^\\s*(?:${ITEM}(?:\\s*,\\s*${ITEM})*)?\\s*$`;
const SELECTION = new RegExp(PAGE_SELECTION_PATTERN);
const MAX_SELECTION_LENGTH = 2000;

/** Schema for an options field holding a selection; malformed ones fail request validation (400). */
export const PageSelectionSchema = (description = 'Pages to act on; empty or omitted = all pages.') =>
  Type.String({
    pattern: PAGE_SELECTION_PATTERN,
    maxLength: MAX_SELECTION_LENGTH,
    description: `${description} Syntax: "1-3,7,10-z"; z = last page, r1 = last page, r2 = second to last; "5-1" runs backwards.`,
    examples: ['1-3,7,10-z', 'r3-z'],
  });

const ITEM_ALONE = new RegExp(`^${ITEM}$`);

/**
 * What is wrong with a malformed selection, in words (the schema's pattern is a regular expression
 * of some 200 characters, no help to a person): the first item that is not a page or a range.
 */
export function pageSelectionMistake(text: string): string {
  if (text.length > MAX_SELECTION_LENGTH) return `is longer than ${MAX_SELECTION_LENGTH} characters`;
  const syntax =
    'a page is a number from 1, z (the last page) or rN (the N-th from the end); a range is two pages joined by -, e.g. "1-3,7,10-z"';
  const items = text.split(',').map((item) => item.trim());
  if (items.length > 1 && items.some((item) => item === ''))
    return `has an empty item between commas (${syntax})`;
  const bad = items.find((item) => !ITEM_ALONE.test(item));
  if (bad === undefined) return `is not a page selection (${syntax})`;
  const shown = JSON.stringify(bad.length > 24 ? `${bad.slice(0, 24)}…` : bad);
  if (/(^|-)\s*[rR]?0+\s*(-|$)/.test(bad)) {
    return `names page 0 in ${shown}: pages count from 1`;
  }
  return `has ${shown}, which is not a page or a range (${syntax})`;
}

/** Whether `text` is well-formed, without knowing the document (request-time check). */
export function isPageSelectionSyntaxValid(text: string | undefined): boolean {
  return text === undefined || (text.length <= MAX_SELECTION_LENGTH && SELECTION.test(text));
}

type PageRef = { kind: 'number'; n: number } | { kind: 'last' } | { kind: 'fromEnd'; n: number };
interface RangeItem {
  from: PageRef;
  to: PageRef;
}

function parseRef(token: string): PageRef {
  const t = token.trim().toLowerCase();
  if (t === 'z') return { kind: 'last' };
  if (t.startsWith('r')) return { kind: 'fromEnd', n: Number(t.slice(1)) };
  return { kind: 'number', n: Number(t) };
}

function parseItems(text: string): RangeItem[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const [from, to] = part.split('-');
    const start = parseRef(from!);
    return { from: start, to: to === undefined ? start : parseRef(to) };
  });
}

function resolveRef(ref: PageRef, pageCount: number, source: string): number {
  const page = ref.kind === 'number' ? ref.n : ref.kind === 'last' ? pageCount : pageCount - ref.n + 1;
  if (page < 1 || page > pageCount || !Number.isSafeInteger(page)) {
    throw new QuireError(
      'page_range_invalid',
      `The selection "${source}" names a page outside the document, which has ${pageCount} page${pageCount === 1 ? '' : 's'}`,
      { extras: { page_count: pageCount } },
    );
  }
  return page;
}

/**
 * Resolves a selection to page numbers in the order written, repeats kept. Empty or undefined
 * means every page. Throws `page_range_invalid` for malformed text or a page outside 1..pageCount.
 */
export function resolvePageList(text: string | undefined, pageCount: number): number[] {
  if (!isPageSelectionSyntaxValid(text)) {
    throw new QuireError('page_range_invalid', 'The page selection is malformed');
  }
  const items = parseItems(text ?? '');
  if (items.length === 0) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const pages: number[] = [];
  for (const item of items) {
    const from = resolveRef(item.from, pageCount, text!);
    const to = resolveRef(item.to, pageCount, text!);
    const step = from <= to ? 1 : -1;
    for (let p = from; p !== to + step; p += step) pages.push(p);
  }
  return pages;
}

/** The selection as a set: ascending, without repeats. */
export function resolvePageSet(text: string | undefined, pageCount: number): number[] {
  return [...new Set(resolvePageList(text, pageCount))].sort((a, b) => a - b);
}

/** Compacts page numbers into qpdf's range syntax, keeping order: [1,2,3,7,6,5] → "1-3,7-5". */
export function toQpdfRange(pages: readonly number[]): string {
  const parts: string[] = [];
  let i = 0;
  while (i < pages.length) {
    const start = pages[i]!;
    let end = start;
    let step = 0;
    const next = pages[i + 1];
    if (next !== undefined && Math.abs(next - start) === 1) step = next - start;
    while (step !== 0 && pages[i + 1] === end + step) {
      end += step;
      i++;
    }
    parts.push(start === end ? String(start) : `${start}-${end}`);
    i++;
  }
  return parts.join(',');
}

/**
 * Consecutive pages in runs of at most `maxRun`: [1,2,3,7] → 1–3, 7–7. Engines that take a first and
 * last page (pdftotext, pdftoppm, pdfimages) then run once per run, reporting progress between runs.
 */
export function pageRuns(pages: readonly number[], maxRun: number): { first: number; last: number }[] {
  const runs: { first: number; last: number }[] = [];
  for (const page of pages) {
    const run = runs.at(-1);
    if (run && page === run.last + 1 && run.last - run.first + 1 < maxRun) run.last = page;
    else runs.push({ first: page, last: page });
  }
  return runs;
}
