// Stamps for watermark and page-numbers: a small PDF generated with pdf-lib, one page per distinct
// target geometry, that qpdf then lays over or under the input (the input never enters JS memory).

import { writeFile } from 'node:fs/promises';
import {
  concatTransformationMatrix,
  PDFDocument,
  type PDFFont,
  PDFName,
  PDFOperator,
  type PDFPage,
  PDFString,
  popGraphicsState,
  pushGraphicsState,
  type RGB,
  rgb,
  StandardFontEmbedder,
  StandardFonts,
  setTextRenderingMode,
  TextRenderingMode,
} from 'pdf-lib';
import { displayedSize } from '../../engines/poppler/geometry.js';
import type { PageGeometry } from '../../engines/poppler/poppler.js';
import { engineCall, engineCallWithProgress } from '../framework/engine-call.js';
import { workFile } from '../framework/output-name.js';
import { toQpdfRange } from '../framework/page-selection.js';
import type { RunContext, ToolInput } from '../framework/types.js';

/**
 * Helvetica is one of the 14 standard fonts every reader has, so nothing is embedded; its WinAnsi
 * encoding covers Latin-1 plus a few typographic signs, and text outside it is refused up front.
 */
export const STAMP_FONT = StandardFonts.Helvetica;
// The embedder's font-name type is a separate enum with the same string values.
const fontMetrics = StandardFontEmbedder.for(
  STAMP_FONT as unknown as Parameters<typeof StandardFontEmbedder.for>[0],
);

/** Whether Helvetica's WinAnsi encoding can write `text` (request-time check, no document needed). */
export function isStampEncodable(text: string): boolean {
  try {
    fontMetrics.encodeText(text);
    return true;
  } catch {
    return false;
  }
}

export function parseHexColor(hex: string): RGB {
  const n = Number.parseInt(hex.slice(1), 16);
  return rgb(((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255);
}

export interface StampTarget {
  page: number;
  geometry: PageGeometry;
}

export interface StampPage {
  page: PDFPage;
  doc: PDFDocument;
  /** Helvetica, embedded once per stamp document. */
  font: PDFFont;
  width: number;
  height: number;
  /** Every input page this stamp page is laid on (1-based). */
  targets: number[];
}

export interface StampPlan {
  /** The stamp PDF in the work dir. */
  stamp: string;
  /** qpdf ranges for the overlay adapter: input pages and the stamp page for each. */
  to: string;
  from: string;
}

/** The stamp targets of `input`: each selected page with its geometry (poppler). */
export async function stampTargets<O>(
  ctx: RunContext<O>,
  input: ToolInput,
  pages: readonly number[],
  pageCount: number,
): Promise<StampTarget[]> {
  const geometry = await ctx.engines.poppler.pageGeometry(input.path, pageCount, engineCall(ctx));
  return pages.map((page) => ({ page, geometry: geometry[page - 1]! }));
}

/** Lays the stamp over or under its target pages of `input` (qpdf) and returns the new file. */
export async function applyStamp<O>(
  ctx: RunContext<O>,
  input: ToolInput,
  plan: StampPlan,
  layer: 'over' | 'under',
  label: string,
): Promise<string> {
  const output = workFile(ctx.workDir, label);
  await ctx.engines.qpdfOverlay.stamp(input.path, output, { ...plan, layer }, engineCallWithProgress(ctx));
  return output;
}

/**
 * Writes one stamp page per distinct `keyOf(target)` (watermarks: per displayed page size; page
 * numbers: per page), each exactly the page's displayed trim-box size so qpdf places it unscaled.
 */
export async function writeStamp(
  workDir: string,
  targets: readonly StampTarget[],
  keyOf: (target: StampTarget) => string,
  draw: (stamp: StampPage) => Promise<void> | void,
): Promise<StampPlan> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = await doc.embedFont(STAMP_FONT);
  const groups = new Map<string, { index: number; targets: StampTarget[] }>();
  for (const target of targets) {
    const key = keyOf(target);
    const group = groups.get(key) ?? { index: groups.size + 1, targets: [] };
    group.targets.push(target);
    groups.set(key, group);
  }
  for (const group of groups.values()) {
    const { width, height } = displayedSize(group.targets[0]!.geometry);
    const page = doc.addPage([width, height]);
    await draw({ page, doc, font, width, height, targets: group.targets.map((t) => t.page) });
  }
  const stampOf = new Map<number, number>();
  for (const group of groups.values()) for (const t of group.targets) stampOf.set(t.page, group.index);
  const pages = [...stampOf.keys()].sort((a, b) => a - b);
  const file = workFile(workDir, 'stamp');
  await writeFile(file, await doc.save({ useObjectStreams: false }), { mode: 0o600 });
  return { stamp: file, to: toQpdfRange(pages), from: toQpdfRange(pages.map((p) => stampOf.get(p)!)) };
}

/** Groups pages by displayed size, rounded to 1/100 pt (pdfinfo's precision). */
export const sizeKey = (t: StampTarget) => {
  const { width, height } = displayedSize(t.geometry);
  return `${width.toFixed(2)}x${height.toFixed(2)}`;
};

export interface TextStyle {
  font: PDFFont;
  size: number;
  color: RGB;
  opacity: number;
  /** Degrees counter-clockwise, as on paper. */
  rotation: number;
}

/** The box a rotated w×h rectangle occupies on the page. */
export function rotatedExtent(w: number, h: number, degrees: number): { width: number; height: number } {
  const a = (degrees * Math.PI) / 180;
  const c = Math.abs(Math.cos(a));
  const s = Math.abs(Math.sin(a));
  return { width: w * c + h * s, height: w * s + h * c };
}

/** Runs `body` in a coordinate system centred on (x, y) and turned by `degrees`. */
export function withRotation(page: PDFPage, x: number, y: number, degrees: number, body: () => void): void {
  const a = (degrees * Math.PI) / 180;
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(Math.cos(a), Math.sin(a), -Math.sin(a), Math.cos(a), x, y),
  );
  body();
  page.pushOperators(popGraphicsState());
}

/**
 * Draws `text` centred on (x, y). pdftotext cannot read text on a slant (it splits it into
 * fragments), so slanted glyphs carry an empty /ActualText (ISO 32000-2 §14.9.4) that hides them
 * from extraction; callers add one searchable upright copy with `drawSearchableText`.
 */
export function drawCenteredText(page: PDFPage, text: string, x: number, y: number, style: TextStyle): void {
  const width = style.font.widthOfTextAtSize(text, style.size);
  const height = style.font.heightAtSize(style.size, { descender: false });
  const slanted = style.rotation % 90 !== 0;
  if (slanted) {
    const span = page.doc.context.obj({ ActualText: PDFString.of('') });
    // pdf-lib's operand type omits dictionaries, which BDC takes and pdf-lib serialises fine.
    page.pushOperators(PDFOperator.of('BDC' as never, [PDFName.of('Span'), span as never]));
  }
  withRotation(page, x, y, style.rotation, () => {
    page.drawText(text, {
      x: -width / 2,
      y: -height / 2,
      size: style.size,
      font: style.font,
      color: style.color,
      opacity: style.opacity,
    });
  });
  if (slanted) page.pushOperators(PDFOperator.of('EMC' as never));
}

/**
 * An invisible (render mode 3, as OCR layers use) upright copy of `text` centred on (x, y), so the
 * stamp is found by search and text extraction; shrunk to fit the page width, since it is unseen.
 */
export function drawSearchableText(page: PDFPage, font: PDFFont, text: string, x: number, y: number): void {
  const pageWidth = page.getWidth();
  const size = Math.min(24, (0.9 * pageWidth) / Math.max(font.widthOfTextAtSize(text, 1), 1e-3));
  const width = font.widthOfTextAtSize(text, size);
  page.pushOperators(pushGraphicsState(), setTextRenderingMode(TextRenderingMode.Invisible));
  page.drawText(text, { x: x - width / 2, y: y - size / 3, size, font });
  page.pushOperators(popGraphicsState());
}
