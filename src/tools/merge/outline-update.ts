// Writes a merged outline into the file qpdf wrote as an incremental update (PDF 32000-1 §7.5.6):
// new outline objects, a copy of the catalog pointing at them, an xref section and a trailer whose
// /Prev is qpdf's xref. Appending costs what the outline weighs, not what the document weighs.
import { appendFileSync } from 'node:fs';
import { dictEntries } from '../framework/pdf-dict.js';
import type { WrittenPdf } from '../framework/written-pdf.js';
import type { OutlineNode } from './merge-outlines.js';

/** The explicit destination types (§12.3.2.2, Table 151): the only names a view may hold. */
const VIEW_NAMES = new Set(['/XYZ', '/Fit', '/FitH', '/FitV', '/FitR', '/FitB', '/FitBH', '/FitBV']);

/** Far past any page coordinate; also keeps numbers out of exponent notation, which PDF lacks. */
const MAX_COORDINATE = 1e9;

/** A text string (§7.9.2.2): a literal when it is printable ASCII, else UTF-16BE with its BOM. */
export function pdfText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return `(${text.replace(/[\\()]/g, '\\$&')})`;
  return `<FEFF${Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase()}>`;
}

function pdfNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return value.toFixed(4).replace(/\.?0+$/, '');
}

/**
 * `[page /View …]`: the view kept when it is one of the destination forms (names, finite numbers,
 * null), else `/Fit`; nothing from the input (a reference into it, say) reaches the output.
 */
export function pdfDest(dest: readonly unknown[]): string {
  const [page, ...view] = dest;
  const valid =
    VIEW_NAMES.has(String(view[0])) &&
    view.slice(1).every((v) => v === null || (typeof v === 'number' && Math.abs(v) < MAX_COORDINATE));
  const parts = valid
    ? view.map((v) => (v === null ? 'null' : typeof v === 'number' ? pdfNumber(v) : String(v)))
    : ['/Fit'];
  return `[${String(page)} ${parts.join(' ')}]`;
}

/** Outline item dictionaries numbered from `first`, depth first; returns them and the root's. */
export function outlineObjects(
  nodes: readonly OutlineNode[],
  first: number,
): { bodies: string[]; root: string } {
  const bodies: string[] = [];
  const ref = (num: number) => `${num} 0 R`;
  const rootNum = first;
  bodies.push('');
  /** Writes `list` under `parent`; returns its first and last refs and the items it shows open. */
  const emit = (list: readonly OutlineNode[], parent: number) => {
    const nums = list.map(() => first + bodies.push('') - 1);
    let shown = 0;
    list.forEach((node, i) => {
      const kids = emit(node.kids, nums[i]!);
      const entries = [`/Title ${pdfText(node.title)}`, `/Parent ${ref(parent)}`];
      if (node.dest) entries.push(`/Dest ${pdfDest(node.dest)}`);
      if (i > 0) entries.push(`/Prev ${ref(nums[i - 1]!)}`);
      if (i < list.length - 1) entries.push(`/Next ${ref(nums[i + 1]!)}`);
      if (kids.last !== undefined) {
        // Closed items count negatively what opening them would show (§12.3.3, Table 153).
        entries.push(`/First ${ref(kids.first!)}`, `/Last ${ref(kids.last)}`);
        entries.push(`/Count ${node.open ? kids.shown : -kids.shown}`);
      }
      bodies[nums[i]! - first] = `<< ${entries.join(' ')} >>`;
      shown += 1 + (node.open ? kids.shown : 0);
    });
    return { first: nums[0], last: nums.at(-1), shown };
  };
  const top = emit(nodes, rootNum);
  const count = top.last === undefined ? '' : ` /First ${ref(top.first!)} /Last ${ref(top.last)}`;
  bodies[0] = `<< /Type /Outlines${count} /Count ${top.shown} >>`;
  return { bodies, root: ref(rootNum) };
}

/** The catalog as written, with its /Outlines (if any) replaced by `outlines`. */
export function catalogWithOutlines(catalog: string, outlines: string): string {
  const old = dictEntries(catalog).find((e) => e.key === '/Outlines');
  const kept = old ? catalog.slice(0, old.start) + catalog.slice(old.end) : catalog;
  const close = kept.lastIndexOf('>>');
  return `${kept.slice(0, close).trimEnd()} /Outlines ${outlines} >>`;
}

/** Appends `nodes` to `pdf` (laid out as `layout`) as one incremental update. */
export async function appendOutline(
  pdf: string,
  layout: WrittenPdf,
  nodes: readonly OutlineNode[],
): Promise<void> {
  const { bodies, root: outlines } = outlineObjects(nodes, layout.size);
  const [rootNum, rootGen] = layout.root.split(' ');
  const chunks: string[] = ['\n'];
  let at = layout.length + 1;
  const write = (num: string | number, gen: string, body: string) => {
    const text = `${num} ${gen} obj\n${body}\nendobj\n`;
    const offset = at;
    chunks.push(text);
    at += Buffer.byteLength(text, 'latin1');
    return `${String(offset).padStart(10, '0')} ${gen.padStart(5, '0')} n \n`;
  };
  const catalogEntry = write(rootNum!, rootGen!, catalogWithOutlines(layout.catalog, outlines));
  const entries = bodies.map((body, i) => write(layout.size + i, '0', body));
  const size = layout.size + bodies.length;
  chunks.push(
    `xref\n${rootNum} 1\n${catalogEntry}${layout.size} ${bodies.length}\n${entries.join('')}`,
    `trailer\n<< /Size ${size} /Root ${layout.root} /Prev ${layout.startxref}${layout.id ? ` /ID ${layout.id}` : ''} >>\n`,
    `startxref\n${at}\n%%EOF\n`,
  );
  // One write of a few KB to a file in the page cache: on this thread, not a thread-pool round trip.
  appendFileSync(pdf, chunks.join(''), 'latin1');
}
