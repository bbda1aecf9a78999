// Stamping, rendering and extraction tools over HTTP: uploads of PDFs and images, results judged by substance
// (text, image size, content type), and cross-field option errors refused with 400 before a job exists.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { corpusFile } from '../support/corpus.js';
import { pageCount, pageText, toFile } from '../support/pdf.js';
import { useTestServer } from '../support/use-test-server.js';

const quire = useTestServer();

const fourPages = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
const tracemonkey = corpusFile('pdfjs__tracemonkey.pdf');
const png = corpusFile('ocrmypdf__typewriter.png');
const jpeg = corpusFile('ocrmypdf__baiona_cmyk.jpg');

async function succeed(tool: string, files: string[], options?: Record<string, unknown>) {
  const job = await quire.client.run({ tool, files, options });
  expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
  expect(job.progress).toBe(100);
  return { job, ...(await quire.client.download(job.id)) };
}

describe('content tools over HTTP', () => {
  it('watermark puts its text on the pages, which the input did not have', async () => {
    const { body } = await succeed('watermark', [fourPages], { text: 'HTTP-MARK-42' });
    const file = toFile(body);
    expect(pageText(fourPages, 1)).not.toContain('HTTP-MARK-42');
    for (const page of [1, 4]) expect(pageText(file, page)).toContain('HTTP-MARK-42');
  });

  it('page-numbers labels every page with its number', async () => {
    const { body } = await succeed('page-numbers', [fourPages], { format: 'Page {n} of {total}' });
    const file = toFile(body);
    for (const page of [1, 2, 3, 4]) expect(pageText(file, page)).toContain(`Page ${page} of 4`);
  });

  it('pdf-to-images returns one page as the PNG itself', async () => {
    const { response, body } = await succeed('pdf-to-images', [tracemonkey], { pages: '1', dpi: 50 });
    expect(response.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(body).metadata();
    expect([meta.width, meta.height]).toEqual([425, 550]);
  });

  it('images-to-pdf takes a JPEG and a PNG in upload order', async () => {
    const { body, job } = await succeed('images-to-pdf', [jpeg, png]);
    expect(pageCount(toFile(body))).toBe(2);
    expect(job.result).toMatchObject({ pages: 2 });
  });

  it('extract-text answers JSON with one entry per page', async () => {
    const { response, body } = await succeed('extract-text', [tracemonkey], { format: 'json', pages: '1-2' });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const parsed = JSON.parse(body.toString('utf8')) as { pages: { page: number; text: string }[] };
    expect(parsed.pages.map((p) => p.page)).toEqual([1, 2]);
    expect(parsed.pages[0]!.text).toContain('Trace-based Just-in-Time');
  });

  it('fails a user-password PDF with pdf_encrypted', async () => {
    const job = await quire.client.run({ tool: 'extract-images', files: [corpusFile('qpdf__c-r4.pdf')] });
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('pdf_encrypted');
  });
});

describe('invalid option combinations', () => {
  it.each([
    ['watermark with both text and an image', 'watermark', [fourPages, png], { text: 'X' }, '/options/text'],
    ['watermark with neither text nor an image', 'watermark', [fourPages], {}, '/options/text'],
    [
      'watermark text the stamp font cannot write',
      'watermark',
      [fourPages],
      { text: '機密' },
      '/options/text',
    ],
    [
      'images-to-pdf landscape with page_size fit',
      'images-to-pdf',
      [png],
      { orientation: 'landscape' },
      '/options/orientation',
    ],
    ['pdf-to-images above 600 dpi', 'pdf-to-images', [fourPages], { dpi: 601 }, '/options/dpi'],
    [
      'extract-text with an unknown format',
      'extract-text',
      [fourPages],
      { format: 'html' },
      '/options/format',
    ],
  ])('refuses %s with 400 invalid_options', async (_label, tool, files, options, pointer) => {
    const response = await quire.client.createJob({ tool, files, options });
    const body = (await response.json()) as { code: string; errors?: { pointer?: string }[] };
    expect(response.status).toBe(400);
    expect(body.code).toBe('invalid_options');
    expect(body.errors?.map((e) => e.pointer)).toContain(pointer);
  });
});
