// Pure parsers of poppler-utils' text reports (pdfinfo 22.x, pdffonts, pdfimages -list).

export interface PageFacts {
  page: number;
  width_pt: number;
  height_pt: number;
  /** Paper name poppler recognises (A4, letter, …), if any. */
  paper?: string;
  rotation: number;
}

export interface PdfinfoFacts {
  fields: Record<string, string>;
  pages: PageFacts[];
}

/** pdfinfo prints sizes past 1e6 pt in exponent form (`1.44e+07`); a hostile /MediaBox is one. */
const PAGE_SIZE =
  /^Page\s+(\d+) size:\s+([\d.]+(?:e[+-]?\d+)?) x ([\d.]+(?:e[+-]?\d+)?) pts(?: \(([^)]+)\))?/;
const PAGE_ROT = /^Page\s+(\d+) rot:\s+(-?\d+)/;
const FIELD = /^([A-Za-z][A-Za-z ]*?):\s*(.*)$/;

export function parsePdfinfo(text: string): PdfinfoFacts {
  const fields: Record<string, string> = {};
  const pages = new Map<number, PageFacts>();
  const pageOf = (n: number) => {
    let facts = pages.get(n);
    if (!facts) {
      facts = { page: n, width_pt: 0, height_pt: 0, rotation: 0 };
      pages.set(n, facts);
    }
    return facts;
  };
  for (const line of text.split('\n')) {
    const size = PAGE_SIZE.exec(line);
    if (size) {
      const facts = pageOf(Number(size[1]));
      facts.width_pt = Number(size[2]);
      facts.height_pt = Number(size[3]);
      if (size[4]) facts.paper = size[4];
      continue;
    }
    const rot = PAGE_ROT.exec(line);
    if (rot) {
      pageOf(Number(rot[1])).rotation = Number(rot[2]);
      continue;
    }
    const field = FIELD.exec(line);
    if (field && !(field[1]! in fields)) fields[field[1]!] = field[2]!.trim();
  }
  return { fields, pages: [...pages.values()].sort((a, b) => a.page - b.page) };
}

export interface FontEntry {
  name: string;
  type: string;
  encoding: string;
  embedded: boolean;
  subset: boolean;
  unicode: boolean;
}

/**
 * pdffonts prints fixed-width columns under a dashed rule; the rule's dash runs give the column
 * bounds, which copes with font names that contain spaces.
 */
export function parseFontList(text: string): FontEntry[] {
  const lines = text.split('\n');
  const ruleIndex = lines.findIndex((line) => /^-+( -+)+\s*$/.test(line));
  if (ruleIndex < 0) return [];
  const columns = [...lines[ruleIndex]!.matchAll(/-+/g)].map(
    (m) => [m.index, m.index + m[0].length] as const,
  );
  const cell = (line: string, i: number) => {
    const [start, end] = columns[i] ?? [0, 0];
    return line.slice(start, i === columns.length - 1 ? undefined : end).trim();
  };
  return lines
    .slice(ruleIndex + 1)
    .filter((line) => line.trim() !== '')
    .map((line) => ({
      name: cell(line, 0),
      type: cell(line, 1),
      encoding: cell(line, 2),
      embedded: cell(line, 3) === 'yes',
      subset: cell(line, 4) === 'yes',
      unicode: cell(line, 5) === 'yes',
    }));
}

export interface ImageEntry {
  page: number;
  type: string;
  width: number;
  height: number;
  /** `obj gen` of the image XObject; "0 0" for inline images. */
  object: string;
  /** pdfimages' colour (`rgb`, `gray`, `cmyk`, `icc`, `index`…), components and bits per component. */
  color: string;
  components: number;
  bpc: number;
  /** The stream's filter as pdfimages names it (`jpeg`, `jpx`, `jbig2`, `ccitt`, `image` for Flate…). */
  encoding: string;
  /** Resolution of this placement (pixels per inch on the page). */
  xPpi: number;
  yPpi: number;
  /** The stored (encoded) stream size in bytes, from pdfimages' rounded `size` column. */
  bytes: number;
}

const SIZE_UNITS: Readonly<Record<string, number>> = { B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };

/** pdfimages prints sizes as `3504B`, `92.0K`, `1.3M`. */
function parseSize(cell: string): number {
  const m = /^([\d.]+)([BKMG])$/.exec(cell);
  return m ? Math.round(Number(m[1]) * SIZE_UNITS[m[2]!]!) : 0;
}

export function parseImageList(text: string): ImageEntry[] {
  return text
    .split('\n')
    .slice(2)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 12 && /^\d+$/.test(cols[0]!))
    .map((cols) => ({
      page: Number(cols[0]),
      type: cols[2]!,
      width: Number(cols[3]),
      height: Number(cols[4]),
      object: `${cols[10]} ${cols[11]}`,
      color: cols[5]!,
      components: Number(cols[6]),
      bpc: Number(cols[7]),
      encoding: cols[8]!,
      xPpi: Number(cols[12]),
      yPpi: Number(cols[13]),
      bytes: parseSize(cols[14] ?? ''),
    }));
}
