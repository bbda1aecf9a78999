// The merged outline: `qpdf --empty --pages` keeps no outlines, so each input's outline tree (from
// `qpdf --json` "outlines", which resolves destinations to page positions) is re-pointed at the
// merged pages, within bounds a hostile outline cannot push past (outline-update.ts writes it).

/** One node of qpdf JSON v2 "outlines". */
export interface QpdfOutline {
  title: string;
  /** An explicit destination array, or (from a named destination) a dictionary with /D. */
  dest: unknown[] | { '/D'?: unknown[] } | null;
  destpageposfrom1: number | null;
  open: boolean;
  kids: QpdfOutline[];
}

export interface MergedFile {
  title: string;
  outlines: QpdfOutline[];
  /** Original page number → 0-based position in the merged document (first occurrence). */
  pageMap: ReadonlyMap<number, number>;
  /** 0-based position of the file's first page in the merged document. */
  firstIndex: number;
  /** Page object reference in the input (`"59 0 R"`) → original page number. */
  pageNumbers: ReadonlyMap<string, number>;
}

export interface OutlineNode {
  title: string;
  dest?: unknown[];
  open: boolean;
  kids: OutlineNode[];
}

/**
 * Outline items kept in one merge, and how deep. Real books hold a few thousand items a few levels
 * deep (ISO 32000-1 itself about 1,500); qpdf stops its outline JSON at about 50 levels. Past either
 * bound the rest of the outline is dropped, so the items written (and the recursion writing them)
 * stay bounded. 20,000 items read with their page list stay well inside JSON_MAX_BYTES (~9 MB).
 */
export const MAX_OUTLINE_ITEMS = 20_000;
export const MAX_OUTLINE_DEPTH = 64;

/** Walks outlines within the bounds: `visit` sees each kept item once (pre-order). */
export function eachOutline(
  outlines: readonly QpdfOutline[],
  visit: (outline: QpdfOutline) => void,
  budget = { items: MAX_OUTLINE_ITEMS },
  depth = 1,
): void {
  if (depth > MAX_OUTLINE_DEPTH) return;
  for (const outline of outlines) {
    if (budget.items-- <= 0) return;
    visit(outline);
    eachOutline(outline.kids, visit, budget, depth + 1);
  }
}

/** Keeps the original view (/XYZ left top zoom, /Fit…) and points it at the merged page. */
function destArray(dest: QpdfOutline['dest']): unknown[] | undefined {
  if (Array.isArray(dest)) return dest;
  return dest && Array.isArray(dest['/D']) ? dest['/D'] : undefined;
}

interface Remap {
  file: MergedFile;
  pageRefs: readonly string[];
  budget: { items: number };
}

function remap(outline: QpdfOutline, at: Remap, depth: number): OutlineNode | undefined {
  if (depth > MAX_OUTLINE_DEPTH || at.budget.items-- <= 0) return undefined;
  const { file, pageRefs } = at;
  const kids = remapAll(outline.kids, at, depth + 1);
  const dest = destArray(outline.dest);
  // qpdf leaves destpageposfrom1 null for named destinations; their /D array still names the page.
  const target = dest?.[0];
  const original =
    outline.destpageposfrom1 ?? (typeof target === 'string' ? file.pageNumbers.get(target) : undefined);
  const index = original === undefined ? undefined : file.pageMap.get(original);
  const ref = index === undefined ? undefined : pageRefs[index];
  // A bookmark into a page that was not selected keeps only its surviving children.
  if (ref === undefined && kids.length === 0) return undefined;
  const view = dest && dest.length > 1 ? dest.slice(1) : ['/Fit'];
  return { title: outline.title, open: outline.open, kids, ...(ref ? { dest: [ref, ...view] } : {}) };
}

function remapAll(outlines: readonly QpdfOutline[], at: Remap, depth: number): OutlineNode[] {
  const nodes: OutlineNode[] = [];
  for (const outline of outlines) {
    if (at.budget.items <= 0) break;
    const node = remap(outline, at, depth);
    if (node) nodes.push(node);
  }
  return nodes;
}

export function outlineTree(
  files: readonly MergedFile[],
  pageRefs: readonly string[],
  mode: 'keep' | 'per_file',
): OutlineNode[] {
  const budget = { items: MAX_OUTLINE_ITEMS };
  // per_file adds one level above each file's own items.
  const depth = mode === 'per_file' ? 2 : 1;
  const perFile = files.map((file) => ({
    file,
    nodes: remapAll(file.outlines, { file, pageRefs, budget }, depth),
  }));
  if (mode === 'keep') return perFile.flatMap((f) => f.nodes);
  return perFile.map(({ file, nodes }) => ({
    title: file.title,
    dest: [pageRefs[file.firstIndex], '/Fit'],
    open: false,
    kids: nodes,
  }));
}
