// Engine tier: pdf-to-images' parallel rendering on real poppler and sharp: page order and count
// across engine runs, the JPEG quality it hands the engine, and that a cancel kills every renderer.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { isAbortedError } from '../../src/process/runner.js';
import { jobStarted } from '../../src/tools/framework/cpu-share.js';
import { openAndRun } from '../../src/tools/framework/inputs.js';
import { pdfToImagesTool } from '../../src/tools/pdf-to-images/tool.js';
import { toFile, unzip } from '../support/pdf.js';
import { corpus } from '../support/tool-context.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const TRACEMONKEY = 'pdfjs__tracemonkey.pdf'; // 14 letter pages
const FREECULTURE = 'pdfjs__freeculture.pdf'; // 352 pages

const runs = useToolRuns();

async function start(file: string, options: Record<string, unknown>) {
  const test = await runs.context({ tool: pdfToImagesTool, files: [file], options });
  return { ...test, running: openAndRun(pdfToImagesTool, test.ctx) };
}

/** Renderer processes whose working directory is `workDir` (the runner starts every engine there). */
function renderersIn(workDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (!/^pdfto(cairo|ppm)$/.test(comm)) continue;
      if (readlinkSync(`/proc/${entry}/cwd`) === workDir) pids.push(Number(entry));
    } catch {
      // The process ended while it was being read.
    }
  }
  return pids;
}

/** Samples the renderers in `workDir` every few ms until `until` settles; returns the most seen at once. */
async function mostAtOnce(workDir: string, until: Promise<unknown>): Promise<number> {
  let settled = false;
  void until.finally(() => {
    settled = true;
  });
  let most = 0;
  while (!settled) {
    most = Math.max(most, renderersIn(workDir).length);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  return most;
}

/** Raw RGB pixels of an image, for comparing renders that went through different encoders. */
const pixels = (image: Buffer | string) => sharp(image).removeAlpha().raw().toBuffer();

/** The luminance DC quantiser of a baseline JPEG (first DQT table, first entry). */
function lumaDcQuantiser(jpeg: Buffer): number {
  const at = jpeg.indexOf(Buffer.from([0xff, 0xdb]));
  expect(at).toBeGreaterThan(0);
  return jpeg[at + 5]!;
}

/** libjpeg's jpeg_quality_scaling applied to the standard luminance DC entry (16). */
function libjpegDc(quality: number): number {
  const scale = quality < 50 ? Math.floor(5000 / quality) : 200 - quality * 2;
  return Math.min(255, Math.max(1, Math.floor((16 * scale + 50) / 100)));
}

describe('pdf-to-images in parallel page ranges', () => {
  it('puts every page in the ZIP in page order, each the render of its own page', async () => {
    const { running } = await start(TRACEMONKEY, { dpi: 36 });
    const entries = await unzip(readFileSync((await running).path));
    const names = [...entries.keys()];
    expect(names).toEqual(
      Array.from({ length: 14 }, (_, i) => `pdfjs__tracemonkey-${String(i + 1).padStart(2, '0')}.png`),
    );
    const dir = toFile(Buffer.alloc(0), '.d');
    for (const [i, bytes] of [...entries.values()].entries()) {
      const page = String(i + 1);
      const reference = `${dir}-${page}`;
      execFileSync('pdftocairo', [
        '-png',
        '-r',
        '36',
        '-f',
        page,
        '-l',
        page,
        '-singlefile',
        corpus(TRACEMONKEY),
        reference,
      ]);
      expect((await pixels(bytes)).equals(await pixels(`${reference}.png`)), `page ${page}`).toBe(true);
    }
  });

  it('hands the quality option to the JPEG writer on libjpeg’s scale', async () => {
    for (const quality of [20, 85, 95]) {
      const { running } = await start(TRACEMONKEY, { format: 'jpeg', dpi: 36, pages: '1', quality });
      const output = await running;
      expect(output.contentType).toBe('image/jpeg');
      const jpeg = readFileSync(output.path);
      expect(lumaDcQuantiser(jpeg), `quality ${quality}`).toBe(libjpegDc(quality));
      const meta = await sharp(jpeg).metadata();
      expect([meta.width, meta.height, meta.chromaSubsampling, meta.isProgressive]).toEqual([
        306,
        396,
        '4:2:0',
        false,
      ]);
      expect(Math.round(meta.density!)).toBe(36);
    }
  });

  it('runs one renderer at a time once the job’s share is one core', async () => {
    for (let i = 0; i < os.availableParallelism(); i++) runs.onCleanup(jobStarted());
    const { ctx, running } = await start(TRACEMONKEY, { format: 'jpeg', dpi: 72 });
    expect(await mostAtOnce(ctx.workDir, running)).toBe(1);
    await running;
  });

  it('kills every renderer when the job is canceled mid-render', async () => {
    const { ctx, abort, running } = await start(FREECULTURE, { dpi: 150 });
    running.catch(() => {});
    const lanes = Math.min(2, os.availableParallelism());
    const deadline = Date.now() + 60_000;
    while (renderersIn(ctx.workDir).length < lanes && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(renderersIn(ctx.workDir).length).toBeGreaterThanOrEqual(lanes);
    abort.abort(new Error('canceled'));
    const error = await running.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isAbortedError(error)).toBe(true);
    expect(renderersIn(ctx.workDir)).toEqual([]);
    const left = readdirSync(ctx.workDir).filter((f) => /^page-\d+\.png$/.test(f)).length;
    expect(left).toBeLessThan(352);
  }, 90_000);
});

describe('pdf-to-images renderer choice', () => {
  it('renders a page too long for cairo with splash, at the documented size', async () => {
    // 40000 × 100 pt at 72 dpi: 4 Mpx, under the pixel limit, but wider than cairo's 32767 px.
    const pdf = toFile(Buffer.from(longPagePdf(40_000, 100)), '.pdf');
    const { running } = await start(pdf, { format: 'jpeg', dpi: 72 });
    const meta = await sharp((await running).path).metadata();
    expect([meta.width, meta.height]).toEqual([40_000, 100]);
  });
});

/** A one-page PDF with an empty page of the given size in points. */
function longPagePdf(width: number, height: number): string {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] >>`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (const [i, object] of objects.entries()) {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  }
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  return `${body}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
}
