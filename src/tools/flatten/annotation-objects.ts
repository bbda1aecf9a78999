// Reads the part of a PDF that flatten plans with — trailer, catalog, page dictionaries, their
// /Annots arrays and (when asked) the annotations — by asking qpdf for those objects only.
// Why not the whole object table: flatten used to parse `qpdf --json-output` of the entire file in
// the service's process; a 90 MB file of 1.5 M tiny objects took the embedded server from 350 MB
// to 1.85 GB and stalled /healthz (issue 14). What is read here grows with pages and annotations,
// which the page limit and qpdf's JSON cap (JSON_MAX_BYTES) bound, never with the object count.

import type { Engines } from '../../engines/index.js';
import type { QpdfCall } from '../../engines/qpdf/qpdf.js';
import type { QpdfJsonFile } from './flatten-plan.js';

type Objects = QpdfJsonFile['qpdf'][1];
type Header = { maxobjectid: number };

const REF = /^\d+ \d+ R$/;
const isRef = (v: unknown): v is string => typeof v === 'string' && REF.test(v);
const isDict = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

async function fetchObjects(qpdf: Engines['qpdf'], pdf: string, refs: readonly string[], call: QpdfCall) {
  if (refs.length === 0) return {};
  const json = (await qpdf.json(pdf, ['qpdf'], call, [...new Set(refs)])) as { qpdf: [Header, Objects] };
  return json.qpdf[1];
}

/**
 * The objects flatten-plan reads, as a partial qpdf JSON v2 file. `annotations`: also read each
 * annotation's dictionary (needed to tell widgets from other annotations; counting needs only the
 * arrays).
 */
export async function readAnnotationObjects(
  qpdf: Engines['qpdf'],
  pdf: string,
  call: QpdfCall,
  annotations: boolean,
): Promise<QpdfJsonFile> {
  const head = (await qpdf.json(pdf, ['pages', 'qpdf'], call, ['trailer'])) as {
    pages?: { object: string }[];
    qpdf: [Header, Objects];
  };
  const trailer = head.qpdf[1].trailer?.value;
  const root = isDict(trailer) && isRef(trailer['/Root']) ? [trailer['/Root']] : [];
  const pageRefs = (head.pages ?? []).map((page) => page.object).filter(isRef);
  const objects: Objects = {
    ...head.qpdf[1],
    ...(await fetchObjects(qpdf, pdf, [...root, ...pageRefs], call)),
  };

  const annots = pageRefs
    .map((ref) => objects[`obj:${ref}`]?.value)
    .map((page) => (isDict(page) ? page['/Annots'] : undefined));
  // /Annots may be an indirect array: fetch those arrays before the annotations they list.
  Object.assign(objects, await fetchObjects(qpdf, pdf, annots.filter(isRef), call));
  if (annotations) {
    const lists = annots.map((a) => (isRef(a) ? objects[`obj:${a}`]?.value : a));
    const refs = lists.flatMap((list) => (Array.isArray(list) ? list.filter(isRef) : []));
    Object.assign(objects, await fetchObjects(qpdf, pdf, refs, call));
  }
  return { qpdf: [head.qpdf[0], objects] };
}
