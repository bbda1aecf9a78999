// merge, split, rotate, compress, protect, unlock, info over HTTP on corpus files, by substance: page counts,
// order by text, rotation, qpdf --check, encryption state — and the stable codes of each failure.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import {
  pageCount,
  pageText,
  qpdfCheckPasses,
  requiresPassword,
  rotations,
  toFile,
  unzip,
} from '../support/pdf.js';
import { startTestServer } from '../support/server.js';
import { useTestServer } from '../support/use-test-server.js';

const quire = useTestServer();

const fourPages = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
const tracemonkey = corpusFile('pdfjs__tracemonkey.pdf');

async function succeed(tool: string, files: string[], options?: Record<string, unknown>) {
  const job = await quire.client.run({ tool, files, options });
  expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
  expect(job.progress).toBe(100);
  const { response, body } = await quire.client.download(job.id);
  return { job, response, body };
}

async function failWith(tool: string, files: string[], code: string, options?: Record<string, unknown>) {
  const job = await quire.client.run({ tool, files, options });
  expect(job.status).toBe('failed');
  expect(job.error?.code).toBe(code);
  expect(job.error?.message.length).toBeGreaterThan(0);
  return job;
}

describe('merge', () => {
  it('joins the inputs in order', async () => {
    const { body } = await succeed('merge', [tracemonkey, fourPages]);
    const file = toFile(body);
    expect(pageCount(file)).toBe(14 + 4);
    expect(qpdfCheckPasses(file)).toBe(true);
    expect(pageText(file, 1)).toEqual(pageText(tracemonkey, 1));
    expect(pageText(file, 15)).toEqual(pageText(fourPages, 1));
  });

  it('takes pages_per_file selections', async () => {
    const { body } = await succeed('merge', [fourPages, tracemonkey], { pages_per_file: ['4,1', '2-3'] });
    const file = toFile(body);
    expect(pageCount(file)).toBe(4);
    expect(pageText(file, 1)).toEqual(pageText(fourPages, 4));
    expect(pageText(file, 2)).toEqual(pageText(fourPages, 1));
    expect(pageText(file, 3)).toEqual(pageText(tracemonkey, 2));
  });
});

describe('split', () => {
  it('splits each page into a ZIP of PDFs named after the input', async () => {
    const { response, body } = await succeed('split', [fourPages]);
    expect(response.headers.get('content-type')).toBe('application/zip');
    const entries = await unzip(body);
    expect(entries.size).toBe(4);
    for (const [name, bytes] of entries) {
      expect(name).toMatch(/^pypdf-samples__pdflatex-4-pages-\d+\.pdf$/);
      expect(pageCount(toFile(bytes))).toBe(1);
    }
  });

  it('splits by ranges, and a single part comes back as a PDF', async () => {
    const ranges = await succeed('split', [tracemonkey], { mode: 'ranges', ranges: ['1-3', '4-z'] });
    const parts = [...(await unzip(ranges.body)).values()].map((b) => pageCount(toFile(b)));
    expect(parts).toEqual([3, 11]);
    expect(ranges.job.result?.files).toEqual([
      { name: 'pdfjs__tracemonkey-1.pdf', pages: '1-3' },
      { name: 'pdfjs__tracemonkey-2.pdf', pages: '4-14' },
    ]);
    const single = await succeed('split', [tracemonkey], { mode: 'ranges', ranges: ['2-3'] });
    expect(single.response.headers.get('content-type')).toBe('application/pdf');
    expect(pageCount(toFile(single.body))).toBe(2);
  });

  it('splits every N pages', async () => {
    const { body } = await succeed('split', [tracemonkey], { mode: 'every', pages: 5 });
    expect([...(await unzip(body)).values()].map((b) => pageCount(toFile(b)))).toEqual([5, 5, 4]);
  });
});

describe('rotate', () => {
  it('rotates relative to the current rotation, on the selected pages only', async () => {
    const input = corpusFile('pdfbox__PDFBOX-2984-rotations.pdf');
    const before = rotations(input);
    const { body } = await succeed('rotate', [input], { angle: 90, pages: '1,3-4' });
    const after = rotations(toFile(body));
    expect(after).toEqual(before.map((r, i) => ([0, 2, 3].includes(i) ? (r + 90) % 360 : r)));
  });
});

describe('compress', () => {
  it.each(['lossless', 'low', 'medium', 'high'])(
    'level %s never grows the file and keeps every page',
    async (level) => {
      const input = corpusFile('pdfcpu__HL1396.pdf');
      const { job, body } = await succeed('compress', [input], { level });
      const file = toFile(body);
      expect(body.length).toBeLessThanOrEqual(statSync(input).size);
      expect(pageCount(file)).toBe(18);
      expect(qpdfCheckPasses(file)).toBe(true);
      expect(job.result).toMatchObject({
        input_size: statSync(input).size,
        output_size: body.length,
        ratio: expect.any(Number),
      });
    },
  );

  it('makes an image-heavy scan clearly smaller at level high', async () => {
    const input = corpusFile('ocrmypdf__c02-22.pdf');
    const { body } = await succeed('compress', [input], { level: 'high' });
    expect(body.length).toBeLessThan(statSync(input).size * 0.5);
    expect(pageCount(toFile(body))).toBe(1);
  });

  // The image pass's three corpus cases of the `compress` benchmark: a dense JPEG page scan (its
  // streams dumped while the images are listed), an already low-quality photo, and a damaged scan
  // whose sparse JPEG is only smaller than stored with Huffman-optimised coding.
  it('re-encodes the JPEG of a colour page scan at medium through the image pass', async () => {
    const input = corpusFile('ocrmypdf__c02-22.pdf');
    const { job, body } = await succeed('compress', [input], { level: 'medium' });
    const file = toFile(body);
    expect(job.result).toMatchObject({ method: 'lossy', lossy_engine: 'images' });
    expect(body.length).toBeLessThan(statSync(input).size * 0.85);
    expect(qpdfCheckPasses(file)).toBe(true);
    // 150 dpi is under medium's 200-dpi threshold: same pixels, a quality-60 JPEG instead of ≈ 80.
    expect(imageList(file)).toEqual([{ encoding: 'jpeg', width: 800, height: 981, ppi: 150 }]);
  });

  it('leaves a photo JPEG saved below medium quality as stored, and the file no larger', async () => {
    const input = corpusFile('ocrmypdf__poster.pdf');
    const { job, body } = await succeed('compress', [input], { level: 'medium' });
    expect(job.result).toMatchObject({ lossy_applied: false });
    expect(job.result).not.toMatchObject({ lossy_engine: 'ghostscript' });
    expect(body.length).toBeLessThanOrEqual(statSync(input).size);
    expect(imageList(toFile(body))).toEqual(imageList(input));
  });

  it('downsamples the sparse JPEG of a damaged 300-dpi scan to 144 dpi, well under half its size', async () => {
    const input = corpusFile('pdfjs__scan-bad.pdf');
    const { job, body } = await succeed('compress', [input], { level: 'medium' });
    const file = toFile(body);
    expect(job.result).toMatchObject({ method: 'lossy', lossy_engine: 'images' });
    expect(body.length).toBeLessThan(statSync(input).size * 0.5);
    expect(qpdfCheckPasses(file)).toBe(true);
    expect(imageList(file)).toEqual([{ encoding: 'jpeg', width: 1224, height: 1584, ppi: 144 }]);
  });
});

/** `pdfimages -list` rows: encoding, pixel size and placed resolution. */
function imageList(file: string): { encoding: string; width: number; height: number; ppi: number }[] {
  return execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 14)
    .map((cols) => ({
      encoding: cols[8]!,
      width: Number(cols[3]),
      height: Number(cols[4]),
      ppi: Number(cols[12]),
    }));
}

describe('protect and unlock', () => {
  it('encrypts with AES-256 so a password is needed, and unlock with it restores an open file', async () => {
    const protectedPdf = await succeed('protect', [fourPages], {
      user_password: 'open sesame',
      encryption: 'aes-256',
    });
    const locked = toFile(protectedPdf.body);
    expect(requiresPassword(locked)).toBe(true);

    const unlocked = await quire.client.run({
      tool: 'unlock',
      files: [locked],
      options: { password: 'open sesame' },
    });
    expect(unlocked.status).toBe('succeeded');
    const open = toFile((await quire.client.download(unlocked.id)).body);
    expect(requiresPassword(open)).toBe(false);
    expect(pageText(open, 2)).toEqual(pageText(fourPages, 2));
  });

  it.each([
    ['qpdf__c-r4.pdf', 'user2'],
    ['qpdf__enc-XI-R6-V5-U-view-O-master.pdf', 'view'],
    ['qpdf__enc-R2-V1-U-view-O-master.pdf', 'master'],
    ['pdfium__encrypted_hello_world_r5.pdf', 'hôtel'],
  ])('unlocks the corpus file %s with its password', async (name, password) => {
    const { body } = await succeed('unlock', [corpusFile(name)], { password });
    const file = toFile(body);
    expect(requiresPassword(file)).toBe(false);
    expect(qpdfCheckPasses(file)).toBe(true);
  });
});

describe('info', () => {
  it('reports pages, version and encryption as JSON', async () => {
    const { response, body } = await succeed('info', [tracemonkey]);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const info = JSON.parse(body.toString()) as Record<string, unknown>;
    expect(info.pages).toBe(14);
    expect(info).toHaveProperty('pdf_version');
    expect(info).toHaveProperty('encryption.encrypted', false);
  });
});

describe('failures carry stable codes', () => {
  const encrypted = corpusFile('qpdf__enc-XI-R6-V5-U-view-O-master.pdf');
  it.each(['rotate', 'compress', 'split', 'info', 'protect'])(
    '%s on a password-protected PDF fails with pdf_encrypted',
    async (tool) => {
      const options: Record<string, Record<string, unknown>> = {
        rotate: { angle: 90 },
        protect: { user_password: 'x' },
      };
      await failWith(tool, [encrypted], 'pdf_encrypted', options[tool]);
    },
  );

  it('merge with one encrypted input fails with pdf_encrypted', async () => {
    await failWith('merge', [fourPages, encrypted], 'pdf_encrypted');
  });

  it('unlock with a wrong password fails with invalid_password', async () => {
    await failWith('unlock', [encrypted], 'invalid_password', { password: 'not-it' });
  });

  it.each([
    ['rotate', { angle: 90, pages: '7' }],
    ['split', { mode: 'ranges', ranges: ['1-2', '3-9'] }],
  ])('%s with pages outside the document fails with page_range_invalid', async (tool, options) => {
    await failWith(tool, [fourPages], 'page_range_invalid', options);
  });

  it.each(['ocrmypdf__invalid.pdf', 'pdflib__missing_xref_trailer_dict.pdf'])(
    '%s is refused as pdf_corrupt',
    async (name) => {
      await failWith('rotate', [corpusFile(name)], 'pdf_corrupt', { angle: 90 });
      await failWith('compress', [corpusFile(name)], 'pdf_corrupt');
    },
  );

  it('a document over the page limit fails with limit_pages_exceeded', async () => {
    const limited = await startTestServer({ QUIRE_JOB_MAX_PAGES: '10' });
    try {
      const c = new Client(limited.url, (await limited.newAccount()).key);
      const job = await c.run({ tool: 'rotate', files: [tracemonkey], options: { angle: 90 } });
      expect(job.error?.code).toBe('limit_pages_exceeded');
    } finally {
      await limited.close();
    }
  });
});
