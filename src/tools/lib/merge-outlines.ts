// Rebuilds bookmarks after a qpdf merge. `qpdf --empty --pages` keeps no outlines, so each input's
// outline tree (from `qpdf --json` "outlines", which resolves destinations to page positions) is
// re-created as new objects pointing at the merged pages, applied with `--update-from-json`.

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

interface Node {
  title: string;
  dest?: unknown[];
  open: boolean;
  kids: Node[];
}

/** Keeps the original view (/XYZ left top zoom, /Fit…) and points it at the merged page. */
function destArray(dest: QpdfOutline['dest']): unknown[] | undefined {
  if (Array.isArray(dest)) return dest;
  return dest && Array.isArray(dest['/D']) ? dest['/D'] : undefined;
}

function remap(outline: QpdfOutline, file: MergedFile, pageRefs: readonly string[]): Node | undefined {
  const kids = outline.kids.flatMap((kid) => remap(kid, file, pageRefs) ?? []);
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

export function outlineTree(
  files: readonly MergedFile[],
  pageRefs: readonly string[],
  mode: 'keep' | 'per_file',
): Node[] {
  const perFile = files.map((file) => ({
    file,
    nodes: file.outlines.flatMap((o) => remap(o, file, pageRefs) ?? []),
  }));
  if (mode === 'keep') return perFile.flatMap((f) => f.nodes);
  return perFile.map(({ file, nodes }) => ({
    title: file.title,
    dest: [pageRefs[file.firstIndex], '/Fit'],
    open: false,
    kids: nodes,
  }));
}

/** Items shown when everything above is open (PDF 32000-1 §12.3.3, /Count). */
function visible(nodes: readonly Node[]): number {
  return nodes.reduce((sum, n) => sum + 1 + (n.open ? visible(n.kids) : 0), 0);
}

/**
 * The qpdf JSON v2 update: new outline objects numbered after `maxObjectId`, and the catalog
 * (`rootRef`, whose current dictionary is `rootValue`) pointing at them.
 */
export function outlineUpdate(
  nodes: readonly Node[],
  maxObjectId: number,
  rootRef: string,
  rootValue: Record<string, unknown>,
): unknown {
  let next = maxObjectId + 1;
  const objects: Record<string, { value: Record<string, unknown> }> = {};
  const rootId = `${next++} 0 R`;

  const emit = (list: readonly Node[], parent: string): string[] => {
    const refs = list.map(() => `${next++} 0 R`);
    list.forEach((node, i) => {
      const kidRefs = emit(node.kids, refs[i]!);
      const value: Record<string, unknown> = { '/Title': `u:${node.title}`, '/Parent': parent };
      if (node.dest) value['/Dest'] = node.dest;
      if (i > 0) value['/Prev'] = refs[i - 1];
      if (i < list.length - 1) value['/Next'] = refs[i + 1];
      if (kidRefs.length > 0) {
        value['/First'] = kidRefs[0];
        value['/Last'] = kidRefs[kidRefs.length - 1];
        // Closed items count negatively what opening them would show (§12.3.3, Table 153).
        value['/Count'] = node.open ? visible(node.kids) : -visible(node.kids);
      }
      objects[`obj:${refs[i]}`] = { value };
    });
    return refs;
  };

  const top = emit(nodes, rootId);
  objects[`obj:${rootId}`] = {
    value: { '/Type': '/Outlines', '/First': top[0], '/Last': top[top.length - 1], '/Count': visible(nodes) },
  };
  objects[`obj:${rootRef}`] = { value: { ...rootValue, '/Outlines': rootId } };
  return {
    qpdf: [
      {
        jsonversion: 2,
        pushedinheritedpageresources: false,
        calledgetallpages: false,
        maxobjectid: maxObjectId,
      },
      objects,
    ],
  };
}
