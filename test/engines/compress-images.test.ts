// Engine tier: compress's image pass re-encodes the oversized JPEGs of an image-heavy PDF, keeps its
// text, bilevel and grey images as they are, and hands every other file to Ghostscript.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DUMP_AHEAD_ANY_MAX_BYTES,
  DUMP_AHEAD_MIN_BYTES_PER_PAGE,
  planWithStreams,
  REWRITE_AHEAD_MAX_BYTES,
} from '../../src/tools/compress/image-plan.js';
import { compressTool } from '../../src/tools/compress/tool.js';
import { checkPasses, pageCount } from '../support/pdf-checks.js';
import { corpus } from '../support/tool-context.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const dir = mkdtempSync(path.join(tmpdir(), 'quire-compress-'));
const runs = useToolRuns();

const run = (files: string[], options: unknown) => runs.run(compressTool, files, options);

/** A noisy photo-like JPEG (noise is what makes scans big), `channels` 1 (grey) or 3. */
async function noisyJpeg(width: number, height: number, channels: 1 | 3): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * channels);
  let seed = 7;
  for (let i = 0; i < pixels.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    pixels[i] = 96 + ((seed >> 16) % 128) + (((i / channels) % width) >> 4);
  }
  const image = sharp(pixels, { raw: { width, height, channels } });
  return (channels === 1 ? image.toColourspace('b-w') : image).jpeg({ quality: 92 }).toBuffer();
}

/** Letter pages, each a full-page 300-dpi JPEG with a line of real text on top. */
async function scanWithText(name: string, pages: number, channels: 1 | 3): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const jpeg = await doc.embedJpg(await noisyJpeg(2550, 3300, channels));
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage([612, 792]);
    page.drawImage(jpeg, { x: 0, y: 0, width: 612, height: 792 });
    page.drawText(`Quire keeps this line ${i + 1}`, { x: 72, y: 720, size: 24, font });
  }
  const file = path.join(dir, name);
  writeFileSync(file, await doc.save());
  return file;
}

interface ImageRow {
  color: string;
  bpc: number;
  encoding: string;
  ppi: number;
}

function imageRows(file: string): ImageRow[] {
  const out = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' });
  return out
    .split('\n')
    .slice(2)
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c.length >= 14)
    .map((c) => ({ color: c[5]!, bpc: Number(c[7]), encoding: c[8]!, ppi: Number(c[12]) }));
}

let colourScan: string;
let greyScan: string;
beforeAll(async () => {
  colourScan = await scanWithText('colour.pdf', 2, 3);
  greyScan = await scanWithText('grey.pdf', 1, 1);
}, 60_000);

describe('compress image pass', () => {
  it('re-encodes an image-heavy PDF smaller, at 144 dpi, with its text still extractable', async () => {
    const { output } = await run([colourScan], { level: 'medium' });
    expect(output.facts).toMatchObject({ method: 'lossy', lossy_engine: 'images', reduced: true });
    expect(statSync(output.path).size).toBeLessThan(statSync(colourScan).size / 2);
    expect(await checkPasses(output.path)).toBe(true);
    expect(await pageCount(output.path)).toBe(2);
    const text = execFileSync('pdftotext', [output.path, '-'], { encoding: 'utf8' });
    expect(text).toContain('Quire keeps this line 1');
    expect(text).toContain('Quire keeps this line 2');
    expect(imageRows(output.path)).toEqual([
      { color: 'rgb', bpc: 8, encoding: 'jpeg', ppi: 144 },
      { color: 'rgb', bpc: 8, encoding: 'jpeg', ppi: 144 },
    ]);
  });

  it('keeps a grey JPEG grey (one component)', async () => {
    const { output } = await run([greyScan], { level: 'high' });
    expect(output.facts).toMatchObject({ lossy_engine: 'images' });
    expect(imageRows(output.path)).toEqual([{ color: 'gray', bpc: 8, encoding: 'jpeg', ppi: 72 }]);
  });

  it('leaves a bilevel scan bilevel when it shares a file with big JPEGs', async () => {
    const mixed = path.join(dir, 'mixed.pdf');
    execFileSync('qpdf', ['--empty', '--pages', colourScan, corpus('ocrmypdf__ccitt.pdf'), '--', mixed]);
    const { output } = await run([mixed], { level: 'medium' });
    expect(output.facts).toMatchObject({ lossy_engine: 'images' });
    const rows = imageRows(output.path);
    expect(rows.filter((r) => r.encoding === 'ccitt')).toEqual([
      { color: 'gray', bpc: 1, encoding: 'ccitt', ppi: 300 },
    ]);
    expect(await checkPasses(output.path)).toBe(true);
  });

  it.each([
    ['a bilevel scan', 'pdfcpu__HL1396.pdf'],
    ['a file without images', 'pypdf-samples__pdflatex-4-pages.pdf'],
    ['a text file with a few figures', 'pdfjs__tracemonkey.pdf'],
  ])('hands %s to Ghostscript', async (_label, file) => {
    const { output } = await run([file], { level: 'medium' });
    expect(output.facts).not.toMatchObject({ lossy_engine: 'images' });
    expect(output.facts!.output_size as number).toBeLessThanOrEqual(statSync(corpus(file)).size);
  });

  it('reads a JPEG stored inside Flate and writes it back as a plain JPEG', async () => {
    const { output } = await run(['pdfjs__scan-bad.pdf'], { level: 'medium' });
    expect(output.facts).toMatchObject({ lossy_engine: 'images' });
    expect(imageRows(output.path)).toEqual([{ color: 'rgb', bpc: 8, encoding: 'jpeg', ppi: 144 }]);
    const dump = JSON.parse(
      execFileSync('qpdf', ['--json=2', '--json-key=qpdf', output.path], { encoding: 'utf8' }),
    );
    const objects = Object.values(
      dump.qpdf[1] as Record<string, { stream?: { dict: Record<string, unknown> } }>,
    );
    const images = objects.filter((o) => o.stream?.dict['/Subtype'] === '/Image');
    expect(images.map((o) => o.stream!.dict['/Filter'])).toEqual(['/DCTDecode']);
    expect(await checkPasses(output.path)).toBe(true);
  });

  it('keeps a bilevel scan bilevel at every lossy level', async () => {
    const { output } = await run(['ocrmypdf__ccitt.pdf'], { level: 'high' });
    expect(imageRows(output.path).map((r) => r.bpc)).toEqual([1]);
  });

  it.each([
    'ocrmypdf__c02-22.pdf',
    'ocrmypdf__poster.pdf',
    'pdfjs__scan-bad.pdf',
    'pdfplumber__issue-203-decimalize.pdf',
    'pypdf__Seige_of_Vicksburg_Sample_OCR.pdf',
    'ocrmypdf__linn.pdf',
  ])('never returns a larger file than %s, and a valid one', async (file) => {
    for (const level of ['low', 'medium', 'high']) {
      const { output } = await run([file], { level });
      expect(statSync(output.path).size).toBeLessThanOrEqual(statSync(corpus(file)).size);
      expect(await checkPasses(output.path)).toBe(true);
    }
  });
});

describe('image pass plan with streams', () => {
  /** planWithStreams on `file` as if it had `pages` pages, on real pdfimages and qpdf. */
  async function plan(file: string, pages: number) {
    const test = await runs.context({ tool: compressTool, files: [file], options: {} });
    const input = test.ctx.inputs[0]!;
    return planWithStreams({ ...test.ctx, pages: [pages] }, input.path, { bytes: input.size, pages });
  }

  it('dumps every stream of a heavy file while listing its images', async () => {
    expect(statSync(colourScan).size / 2).toBeGreaterThanOrEqual(DUMP_AHEAD_MIN_BYTES_PER_PAGE);
    const result = await plan(colourScan, 2);
    expect(result?.candidates).toHaveLength(1);
    const image = result!.streams!.get(result!.candidates[0]!.object)!;
    expect(image.dict['/Filter']).toBe('/DCTDecode');
    // Content streams and the font came along too: the dump is not limited to the candidates.
    expect(result!.streams!.size).toBeGreaterThan(1);
  });

  it('leaves the dump to after the list for a file under the per-page threshold', async () => {
    const file = corpus('ocrmypdf__c02-22.pdf');
    const pages = Math.ceil(statSync(file).size / DUMP_AHEAD_MIN_BYTES_PER_PAGE) + 1;
    const result = await plan(file, pages);
    expect(result?.candidates).toHaveLength(1);
    expect(result?.streams).toBeUndefined();
  });

  it('dumps every stream of a file small enough whatever its page count', async () => {
    const file = corpus('pdfjs__scan-bad.pdf');
    expect(statSync(file).size).toBeLessThanOrEqual(DUMP_AHEAD_ANY_MAX_BYTES);
    const result = await plan(file, 100);
    expect(result?.candidates).toHaveLength(1);
    expect(result!.streams!.size).toBeGreaterThan(1);
  });

  it("writes a small file's lossless rewrite beside the list, for when no image gains", async () => {
    const file = corpus('ocrmypdf__poster.pdf');
    expect(statSync(file).size).toBeLessThanOrEqual(REWRITE_AHEAD_MAX_BYTES);
    const result = await plan(file, 1);
    expect(result?.candidates).toHaveLength(1);
    const rewrite = await result?.rewrite;
    expect(rewrite).toEqual({ file: expect.any(String), warned: false });
    expect(await checkPasses(rewrite!.file)).toBe(true);
    expect(await pageCount(rewrite!.file)).toBe(1);
  });

  it('stops the dump and plans nothing for a heavy file the pass does not take', async () => {
    // HL1396's 18 CCITT pages counted as one: heavy enough to dump, but no JPEG to re-encode.
    expect(await plan('pdfcpu__HL1396.pdf', 1)).toBeUndefined();
  });
});
