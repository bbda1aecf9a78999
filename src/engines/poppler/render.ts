// Argv and output naming of one page-range render by poppler: pdftocairo (cairo) by default,
// pdftoppm (splash) for pages too long for a cairo image surface. Pure, so it is tested as a table.
/**
 * cairo refuses image surfaces wider or taller than 32767 px (cairo-image-surface.c,
 * MAX_IMAGE_SIZE); a page under the pixel limit can still be that long (a 1e6 × 1 pt /MediaBox),
 * and splash renders it.
 */
export const CAIRO_MAX_SIDE = 32_767;

export type RenderProgram = 'pdftocairo' | 'pdftoppm';

export interface RenderRequest {
  program: RenderProgram;
  /** Inclusive, 1-based. */
  range: { first: number; last: number };
  dpi: number;
  /**
   * `jpeg`: the engine's own writer (libjpeg: baseline, 4:2:0, JFIF density = dpi) at `quality`;
   * `raw`: uncompressed RGB TIFF, for an encoder to read strip by strip.
   */
  format: 'jpeg' | 'raw';
  /** libjpeg quality 1–100, the scale sharp and pdftoppm share; ignored for `raw`. */
  quality: number;
}

/** Both programs take the same options for what Quire uses and name pages `<prefix>-<page>.<ext>`. */
export function renderArgs(request: RenderRequest, input: string, prefix: string): string[] {
  const output =
    request.format === 'jpeg'
      ? ['-jpeg', '-jpegopt', `quality=${request.quality}`]
      : ['-tiff', '-tiffcompression', 'none'];
  return [
    '-f',
    String(request.range.first),
    '-l',
    String(request.range.last),
    '-r',
    String(request.dpi),
    ...output,
    input,
    prefix,
  ];
}

export const renderedExtension = (format: RenderRequest['format']) => (format === 'jpeg' ? 'jpg' : 'tif');

/**
 * The page of a file a render wrote under `prefix` (a file name, no directory), or undefined for
 * anything else. The page number is zero-padded to a width that depends on the document, so it
 * is parsed rather than predicted.
 */
export function renderedPage(
  file: string,
  prefix: string,
  format: RenderRequest['format'],
): number | undefined {
  if (!file.startsWith(`${prefix}-`)) return undefined;
  const m = /^(\d+)\.(\w+)$/.exec(file.slice(prefix.length + 1));
  if (!m || m[2] !== renderedExtension(format)) return undefined;
  return Number(m[1]);
}
