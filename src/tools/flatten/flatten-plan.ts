// Lets `flatten` act on form fields only or on other annotations only. qpdf flattens every
// annotation of a page at once (`--flatten-annotations`), so the ones to keep are first moved out
// of each page's /Annots into a private key (still referenced, so qpdf keeps the objects), and
// moved back after flattening. Pure transforms over qpdf JSON v2; no I/O.

type Objects = Record<string, { value?: unknown; stream?: { dict?: unknown } }>;

export interface QpdfJsonFile {
  qpdf: [{ maxobjectid: number }, Objects];
}

/** Which annotations must survive flattening: widgets (keep the form) or all the others. */
export type Protect = 'widgets' | 'others';

/** Private keys (PDF names with a vendor prefix); readers ignore unknown keys. */
const ANNOTS_STASH = '/QuireKeptAnnots';
const FORM_STASH = '/QuireKeptAcroForm';

type Dict = Record<string, unknown>;
const REF = /^\d+ \d+ R$/;

function lookup(objects: Objects, value: unknown): unknown {
  if (typeof value !== 'string' || !REF.test(value)) return value;
  const object = objects[`obj:${value}`];
  return object?.value ?? object?.stream?.dict;
}

const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A page's /Annots as a list, whether the array is direct or an indirect object. */
function annotsOf(objects: Objects, page: Dict): unknown[] {
  const annots = lookup(objects, page['/Annots']);
  return Array.isArray(annots) ? annots : [];
}

function isWidget(objects: Objects, annot: unknown): boolean {
  const dict = lookup(objects, annot);
  return isDict(dict) && dict['/Subtype'] === '/Widget';
}

function pageEntries(objects: Objects): [string, Dict][] {
  return Object.entries(objects).flatMap(([key, object]) =>
    isDict(object.value) && object.value['/Type'] === '/Page' ? [[key, object.value] as [string, Dict]] : [],
  );
}

function rootEntry(objects: Objects): [string, Dict] | undefined {
  const trailer = objects.trailer?.value;
  const ref = isDict(trailer) ? trailer['/Root'] : undefined;
  if (typeof ref !== 'string') return undefined;
  const root = objects[`obj:${ref}`]?.value;
  return isDict(root) ? [`obj:${ref}`, root] : undefined;
}

function withAnnots(page: Dict, annots: unknown[]): Dict {
  const { '/Annots': _old, ...rest } = page;
  return annots.length > 0 ? { ...rest, '/Annots': annots } : rest;
}

function updateFile(file: QpdfJsonFile, changed: Objects): unknown {
  return {
    qpdf: [
      {
        jsonversion: 2,
        pushedinheritedpageresources: false,
        calledgetallpages: false,
        maxobjectid: file.qpdf[0].maxobjectid,
      },
      changed,
    ],
  };
}

export interface StashPlan {
  /** qpdf JSON update moving the protected annotations aside; undefined when nothing moves. */
  update: unknown | undefined;
  /** Annotations left in place for qpdf to flatten. */
  flattenable: number;
}

/**
 * Moves the protected annotations of every page into a private key. Protecting widgets also
 * parks /AcroForm: qpdf removes it after flattening, which would drop the fields being kept.
 */
export function stashPlan(file: QpdfJsonFile, protect: Protect): StashPlan {
  const objects = file.qpdf[1];
  const changed: Objects = {};
  let flattenable = 0;
  for (const [key, page] of pageEntries(objects)) {
    const annots = annotsOf(objects, page);
    const kept = annots.filter((a) => isWidget(objects, a) === (protect === 'widgets'));
    const flatten = annots.filter((a) => !kept.includes(a));
    flattenable += flatten.length;
    if (kept.length > 0) changed[key] = { value: { ...withAnnots(page, flatten), [ANNOTS_STASH]: kept } };
  }
  const root = rootEntry(objects);
  if (protect === 'widgets' && root && root[1]['/AcroForm'] !== undefined) {
    const { '/AcroForm': form, ...rest } = root[1];
    changed[root[0]] = { value: { ...rest, [FORM_STASH]: form } };
  }
  return { update: Object.keys(changed).length > 0 ? updateFile(file, changed) : undefined, flattenable };
}

/** The update that puts stashed annotations (and /AcroForm) back; undefined when none were moved. */
export function restorePlan(file: QpdfJsonFile): unknown | undefined {
  const objects = file.qpdf[1];
  const changed: Objects = {};
  for (const [key, page] of pageEntries(objects)) {
    const kept = page[ANNOTS_STASH];
    if (!Array.isArray(kept)) continue;
    const { [ANNOTS_STASH]: _stash, ...rest } = page;
    changed[key] = { value: withAnnots(rest, [...annotsOf(objects, page), ...kept]) };
  }
  const root = rootEntry(objects);
  if (root && root[1][FORM_STASH] !== undefined) {
    const { [FORM_STASH]: form, ...rest } = root[1];
    changed[root[0]] = { value: { ...rest, '/AcroForm': form } };
  }
  return Object.keys(changed).length > 0 ? updateFile(file, changed) : undefined;
}

/** Annotations over all pages (for the result facts). */
export function annotationCount(file: QpdfJsonFile): number {
  const objects = file.qpdf[1];
  return pageEntries(objects).reduce((n, [, page]) => n + annotsOf(objects, page).length, 0);
}
