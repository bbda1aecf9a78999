// Pure parser of `pdfinfo -box -f 1 -l N`: each page's trim box and /Rotate, which is what a stamp
// page must match so qpdf's --overlay places it without scaling (it fits the stamp to the trim box
// and turns it by the page's /Rotate itself).

export interface PageGeometry {
  page: number;
  /** Trim box in default user space: [x1, y1, x2, y2]. poppler falls back to crop/media box. */
  trimBox: [number, number, number, number];
  /** /Rotate normalised to 0, 90, 180 or 270. */
  rotation: 0 | 90 | 180 | 270;
}

const BOX = /^Page\s+(\d+)\s+TrimBox:\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)/;
const ROT = /^Page\s+(\d+)\s+rot:\s+(-?\d+)/;

function normalise(rotation: number): PageGeometry['rotation'] {
  return ((((Math.round(rotation / 90) * 90) % 360) + 360) % 360) as PageGeometry['rotation'];
}

/** Expects the numbered form pdfinfo prints when given -f/-l (`Page    3 TrimBox: …`). */
export function parsePageGeometry(text: string): PageGeometry[] {
  const pages = new Map<number, PageGeometry>();
  const pageOf = (n: number) => {
    let g = pages.get(n);
    if (!g) {
      g = { page: n, trimBox: [0, 0, 0, 0], rotation: 0 };
      pages.set(n, g);
    }
    return g;
  };
  for (const line of text.split('\n')) {
    const box = BOX.exec(line);
    if (box) pageOf(Number(box[1])).trimBox = [1, 2, 3, 4].map((i) => Number(box[i + 1])) as never;
    const rot = ROT.exec(line);
    if (rot) pageOf(Number(rot[1])).rotation = normalise(Number(rot[2]));
  }
  return [...pages.values()].sort((a, b) => a.page - b.page);
}

/** Width and height as the reader sees the page (after /Rotate). */
export function displayedSize(g: PageGeometry): { width: number; height: number } {
  const w = Math.abs(g.trimBox[2] - g.trimBox[0]);
  const h = Math.abs(g.trimBox[3] - g.trimBox[1]);
  return g.rotation === 90 || g.rotation === 270 ? { width: h, height: w } : { width: w, height: h };
}
