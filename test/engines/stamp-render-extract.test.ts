// Engine tier: stamping, rendering and extraction tools on corpus files with real qpdf, poppler and sharp.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { extractImagesTool } from '../../src/tools/extract-images.js';
import { extractTextTool } from '../../src/tools/extract-text.js';
import { openAndRun } from '../../src/tools/framework/inputs.js';
import type { AnyToolDefinition, InputType } from '../../src/tools/framework/types.js';
import { imagesToPdfTool } from '../../src/tools/images-to-pdf/tool.js';
import { pageNumbersTool } from '../../src/tools/page-numbers.js';
import { pdfToImagesTool } from '../../src/tools/pdf-to-images/tool.js';
import { watermarkTool } from '../../src/tools/watermark.js';
import { toFile, unzip } from '../support/pdf.js';
import { checkPasses, pageCount, pageText } from '../support/pdf-checks.js';
import { corpus } from '../support/tool-context.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const runs = useToolRuns();

/** Runs a tool; `types` overrides the sniffed content type of each input (the helper assumes PDF). */
async function run(tool: AnyToolDefinition, files: string[], options: unknown, types: InputType[] = []) {
  const test = await runs.context({ tool, files, options });
  for (const [i, type] of types.entries()) if (type) test.ctx.inputs[i]!.contentType = type;
  const output = await openAndRun(tool, test.ctx);
  return { ...test, output };
}

const TRACEMONKEY = 'pdfjs__tracemonkey.pdf'; // 14 pages, letter
const LATEX4 = 'pypdf-samples__pdflatex-4-pages.pdf'; // 4 pages, A4
const ROTATED = 'pypdf-samples__habibi-rotated.pdf'; // 4 pages: /Rotate 90, 180, 270, 0
const MARK = 'QUIRE-MARK-7731';

describe('watermark', () => {
  it('stamps extractable text on the selected pages only, at the default 45 degrees', async () => {
    const { output, emitted } = await run(watermarkTool, [TRACEMONKEY], { text: MARK, pages: '1-2' });
    expect(await pageText(corpus(TRACEMONKEY), 1)).not.toContain(MARK);
    expect(await pageText(output.path, 1)).toContain(MARK);
    expect(await pageText(output.path, 2)).toContain(MARK);
    expect(await pageText(output.path, 3)).not.toContain(MARK);
    expect(await pageCount(output.path)).toBe(14);
    expect(await checkPasses(output.path)).toBe(true);
    expect(emitted.map((p) => p.stage)).toEqual(expect.arrayContaining(['stamp', 'apply']));
  });

  it('tiles under the content of rotated pages', async () => {
    const options = { text: MARK, position: 'tile', rotation: 0, layer: 'under', opacity: 0.5 };
    const { output } = await run(watermarkTool, [ROTATED], options);
    for (const page of [1, 2, 3, 4]) expect(await pageText(output.path, page)).toContain(MARK);
  });

  it('stamps an image given as the second file', async () => {
    const image = corpus('ocrmypdf__typewriter.png');
    const { output } = await run(watermarkTool, [LATEX4, image], { position: 'top-right' }, [
      'application/pdf',
      'image/png',
    ]);
    const listing = execFileSync('pdfimages', ['-list', '-f', '1', '-l', '1', output.path], {
      encoding: 'utf8',
    });
    expect(listing.split('\n').filter((l) => /^\s+1\s/.test(l)).length).toBeGreaterThan(0);
    expect(await checkPasses(output.path)).toBe(true);
  });
});

describe('page-numbers', () => {
  it('writes each page’s number on that page, rotated pages included', async () => {
    const { output } = await run(pageNumbersTool, [ROTATED], { format: 'Seite {n} von {total}', start: 3 });
    for (const page of [1, 2, 3, 4]) {
      expect(await pageText(output.path, page)).toContain(`Seite ${page + 2} von 6`);
    }
  });
});

describe('pdf-to-images', () => {
  for (const [format, dpi] of [
    ['png', 72],
    ['jpeg', 110],
  ] as const) {
    it(`renders ${format} at ${dpi} dpi with matching pixel size and recorded density`, async () => {
      const { output } = await run(pdfToImagesTool, [LATEX4], { format, dpi, pages: '2-3' });
      const entries = await unzip(readFileSync(output.path));
      expect([...entries.keys()]).toEqual(
        [2, 3].map((n) => `${path.parse(LATEX4).name}-${n}.${format === 'png' ? 'png' : 'jpg'}`),
      );
      for (const bytes of entries.values()) {
        const meta = await sharp(bytes).metadata();
        expect(meta.format).toBe(format);
        // A4 is 595.276 x 841.89 pt; pdftoppm rounds each side up to whole pixels.
        expect(meta.width).toBe(Math.ceil((595.276 * dpi) / 72));
        expect(meta.height).toBe(Math.ceil((841.89 * dpi) / 72));
        expect(Math.round(meta.density!)).toBe(dpi);
      }
    });
  }

  it('returns a single page as the image itself', async () => {
    const { output, emitted } = await run(pdfToImagesTool, [TRACEMONKEY], { pages: 'z', dpi: 36 });
    expect(output.contentType).toBe('image/png');
    expect((await sharp(output.path).metadata()).width).toBe(306);
    expect(emitted.some((p) => p.stage === 'render' && p.percent > 5)).toBe(true);
  });

  it('refuses a page that would exceed the pixel limit before rendering it', async () => {
    await expect(run(pdfToImagesTool, ['ocrmypdf__poster.pdf'], { dpi: 600 })).rejects.toMatchObject({
      code: 'limit_page_pixels_exceeded',
    });
  });
});

describe('images-to-pdf', () => {
  it('embeds a JPEG byte for byte and honours its EXIF orientation', async () => {
    // 300x100 stored, orientation 6 (turn 90° clockwise to view): the page must be portrait.
    const jpeg = await sharp({ create: { width: 300, height: 100, channels: 3, background: '#c04020' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const file = toFile(jpeg, '.jpg');
    const { output } = await run(imagesToPdfTool, [file], {}, ['image/jpeg']);
    const info = execFileSync('pdfinfo', [output.path], { encoding: 'utf8' });
    expect(info).toMatch(/Page size:\s+100 x 300 pts/);
    const listing = execFileSync('pdfimages', ['-list', output.path], { encoding: 'utf8' }).split('\n')[2]!;
    const object = listing.trim().split(/\s+/)[10]!;
    const stream = execFileSync('qpdf', [`--show-object=${object}`, '--raw-stream-data', output.path]);
    expect(stream.equals(jpeg)).toBe(true);
  });

  it('makes one page per image from TIFF, PNG and CMYK JPEG inputs on A4', async () => {
    const files = [
      'tesseract__phototest.tif',
      'ocrmypdf__typewriter.png',
      'pypdf-samples__smile-lzw.tiff',
      'ocrmypdf__baiona_cmyk.jpg',
    ];
    const types: InputType[] = ['image/tiff', 'image/png', 'image/tiff', 'image/jpeg'];
    const { output } = await run(imagesToPdfTool, files, { page_size: 'a4', margin_mm: 10 }, types);
    expect(await pageCount(output.path)).toBe(4);
    expect(await checkPasses(output.path)).toBe(true);
    const sizes = execFileSync('pdfinfo', ['-f', '1', '-l', '4', output.path], { encoding: 'utf8' });
    expect([...sizes.matchAll(/size:\s+([\d.]+ x [\d.]+)/g)].length).toBe(4);
    expect(sizes).toMatch(/595\.27\d x 841\.89 pts|841\.89 x 595\.27\d pts/);
  });
});

describe('extract-text', () => {
  it('extracts the text of a known page', async () => {
    const { output } = await run(extractTextTool, [TRACEMONKEY], { pages: '1' });
    expect(output.contentType).toBe('text/plain; charset=utf-8');
    expect(readFileSync(output.path, 'utf8')).toContain('Trace-based Just-in-Time');
  });

  it('gives one JSON entry per page in the order selected', async () => {
    const { output } = await run(extractTextTool, [TRACEMONKEY], { format: 'json', pages: '3,1-2' });
    const body = JSON.parse(readFileSync(output.path, 'utf8')) as { pages: { page: number; text: string }[] };
    expect(body.pages.map((p) => p.page)).toEqual([3, 1, 2]);
    expect(body.pages[1]!.text).toContain('Trace-based Just-in-Time');
  });
});

describe('extract-images', () => {
  it('extracts the images of the selected pages, JPEGs byte for byte and masks left out', async () => {
    const file = 'pypdf-samples__GeoTopo-komprimiert.pdf'; // pages 24-25: 8 JPEGs (Flate-wrapped), each with a soft mask
    const { output } = await run(extractImagesTool, [file], { pages: '24-25' });
    const entries = await unzip(readFileSync(output.path));
    expect(entries.size).toBe(8);
    expect(output.facts).toMatchObject({ images: 8 });
    const first = entries.get('pypdf-samples__GeoTopo-komprimiert-p24-1.jpg');
    const raw = execFileSync('qpdf', ['--show-object=115', '--raw-stream-data', corpus(file)]);
    // The stream is [/FlateDecode /DCTDecode]: undo only the Flate layer to get the JPEG file.
    expect(first?.equals(inflateSync(raw))).toBe(true);
  });

  it('extracts an image shared by several pages once, and honours min_size_px', async () => {
    const shared = await run(extractImagesTool, ['ocrmypdf__cardinal.pdf'], {});
    expect(shared.output.facts).toMatchObject({ images: 1 });
    const none = await run(extractImagesTool, ['ocrmypdf__cardinal.pdf'], { min_size_px: 5000 });
    expect(none.output.facts).toMatchObject({ images: 0 });
  });
});

describe('shared failures', () => {
  it('maps encrypted, corrupt and out-of-range inputs to their codes', async () => {
    await expect(run(extractTextTool, ['qpdf__c-r4.pdf'], {})).rejects.toMatchObject({
      code: 'pdf_encrypted',
    });
    await expect(run(watermarkTool, ['ocrmypdf__invalid.pdf'], { text: 'x' })).rejects.toMatchObject({
      code: 'pdf_corrupt',
    });
    await expect(run(pageNumbersTool, [LATEX4], { pages: '5' })).rejects.toMatchObject({
      code: 'page_range_invalid',
    });
  });
});
