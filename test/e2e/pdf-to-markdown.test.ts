// pdf-to-markdown over real HTTP with the production wiring, on ground-truth documents of the
// structure benchmark (bench/structure/sources) rendered by Quire's own html-to-pdf and office-to-pdf:
// headings with levels, a GitHub table, two columns read one after the other, running footers
// dropped on request, JSON blocks with boxes and table cells, images in a ZIP, `ocr: auto` on a scan,
// and the tool as a step after `ocr`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { corpusFile } from '../support/corpus.js';
import { toFile, unzip } from '../support/pdf.js';
import { useTestServer } from '../support/use-test-server.js';

const SOURCES = path.resolve(import.meta.dirname, '../../bench/structure/sources');
const PACK_ODT = path.resolve(import.meta.dirname, '../../bench/structure/pack_odt.py');

let harbour: string;
let orchard: string;

async function rendered(name: string): Promise<string> {
  const job = await quire.client.run({ tool: 'html-to-pdf', files: [path.join(SOURCES, name)] }, 120);
  expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
  return toFile((await quire.client.download(job.id)).body);
}

async function convert(file: string, options: Record<string, unknown>, seconds = 120) {
  const job = await quire.client.run({ tool: 'pdf-to-markdown', options, files: [file] }, seconds);
  expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
  const { response, body } = await quire.client.download(job.id);
  return { job, contentType: response.headers.get('content-type') ?? '', body };
}

const quire = useTestServer();
beforeAll(async () => {
  [harbour, orchard] = await Promise.all([rendered('01-harbour.html'), rendered('02-orchard.html')]);
}, 240_000);

describe('pdf-to-markdown', () => {
  it('writes headings with their levels, a GitHub table, links and two columns one after the other', async () => {
    const { job, contentType, body } = await convert(harbour, { drop_headers_footers: true });
    expect(contentType).toContain('text/markdown');
    const md = body.toString('utf8');
    const headings = md.split('\n').filter((l) => l.startsWith('#'));
    expect(headings).toEqual([
      '# Harbour Survey',
      '## Maintenance',
      '## Background',
      '## Recommendations',
      '## Costs',
      '### Costs details',
    ]);
    expect(md).toContain('|Ward|Actual|Total|Change|');
    expect(md).toContain('|Clinic 4|224|580|358|');
    // A link keeps its target; its text is the run of the line that carries it (pymupdf4llm).
    expect(md).toMatch(/\[[^\]]*published notes[^\]]*\]\(https:\/\/example\.org\/0\/3\)/);
    // The nested list keeps its numbers and its indented inner items.
    expect(md).toMatch(/2\. Annual farmer reported\n+\s+- Second visitor/);
    // The four paragraphs of the two-column section: the left column first, then the right.
    const starts = [
      'Detailed station measured',
      'Second estimate reviewed',
      'Small garden approved',
      'Modest archive discussed',
    ];
    const at = starts.map((s) => md.indexOf(s));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(job.result).toMatchObject({ pages: 2, headings: 6, tables: 1, format: 'markdown', ocr_pages: [] });
    // The running footer, header and page numbers are gone; the title heading stays.
    expect(md).not.toContain('Confidential draft');
    expect(md).not.toMatch(/Page \d of 2/);
    expect(md.match(/Harbour Survey/g)).toHaveLength(1);
  }, 180_000);

  it('reads a document written in OpenDocument and rendered by office-to-pdf', async () => {
    // bench/structure's office sources are flat ODT; pack_odt.py zips one into the .odt Quire takes.
    const odt = path.join(path.dirname(harbour), 'allotment.odt');
    execFileSync('python3', [PACK_ODT, path.join(SOURCES, '22-allotment.fodt'), odt]);
    const pdf = await quire.client.run({ tool: 'office-to-pdf', files: [odt] }, 120);
    expect(pdf.status, JSON.stringify(pdf.error)).toBe('succeeded');
    const file = toFile((await quire.client.download(pdf.id)).body);
    const { job, body } = await convert(file, { drop_headers_footers: true });
    const md = body.toString('utf8');
    expect(md.split('\n').filter((l) => l.startsWith('#'))).toEqual([
      '# Allotment Waiting List',
      '## Funding',
      '## Staffing',
      '## Consultation',
      '### Recommendations details',
      '## Risks',
      '## Method',
      '## Outcomes',
    ]);
    expect(md).toContain('|Item|Actual|Change|');
    expect(md).toContain('|Meeting 1|684|947|');
    // The merged header (Hours over 2023 and 2024) keeps its second row under the first.
    expect(md).toMatch(/\|Ward\|Hours\|[^\n]*\|Note\|\n[^\n]*\n[^\n]*2023[^\n]*2024/);
    expect(md).toMatch(/1\. Current network prepared\n+\s+- Modest river/);
    expect(job.result).toMatchObject({ headings: 8, tables: 2, ocr_pages: [] });
    expect(md).not.toContain('Prepared by the planning office');
    expect(md).not.toMatch(/Page \d of \d/);
    expect(md.match(/Allotment Waiting List/g)).toHaveLength(1);
  }, 240_000);

  it('keeps running footers unless asked to drop them, and marks pages on request', async () => {
    const md = (await convert(harbour, { page_markers: true })).body.toString('utf8');
    expect(md.match(/Confidential draft for internal review/g)).toHaveLength(2);
    expect(md.startsWith('<!-- page 1 -->\n')).toBe(true);
    expect(md).toContain('<!-- page 2 -->');
  }, 180_000);

  it('gives JSON blocks with page, box, heading level and the cells of a table with merged header cells', async () => {
    const { contentType, body } = await convert(orchard, { format: 'json', drop_headers_footers: true });
    expect(contentType).toContain('application/json');
    const doc = JSON.parse(body.toString('utf8')) as {
      pages: number;
      blocks: Array<{
        type: string;
        page: number;
        bbox: number[] | null;
        text: string;
        level?: number;
        rows?: string[][];
      }>;
    };
    expect(doc.pages).toBe(2);
    const title = doc.blocks[0]!;
    expect(title).toMatchObject({ type: 'heading', level: 1, page: 1, text: 'Orchard Yields' });
    const [x0, y0, x1, y1] = title.bbox as [number, number, number, number];
    expect(x0).toBeLessThan(x1);
    expect(y0).toBeLessThan(y1);
    const tables = doc.blocks.filter((b) => b.type === 'table');
    expect(tables).toHaveLength(2);
    // The merged header: Hours over two year columns, the rows below it cell by cell.
    const merged = tables[1]!.rows!;
    expect(merged[0]).toEqual(expect.arrayContaining(['Hours', 'Note']));
    expect(merged[1]).toEqual(expect.arrayContaining(['2023', '2024']));
    expect(merged.slice(2).map((r) => r[0])).toContain('Visitor 1');
    expect(doc.blocks.filter((b) => b.type === 'paragraph').every((b) => b.bbox !== null)).toBe(true);
  }, 180_000);

  it('puts the images in a ZIP beside the Markdown that references them by name', async () => {
    const { job, contentType, body } = await convert(corpusFile('ocrmypdf__graph_ocred.pdf'), {
      images: true,
    });
    expect(contentType).toContain('application/zip');
    const entries = await unzip(body);
    const md = entries.get('document.md')?.toString('utf8') ?? '';
    const images = [...entries.keys()].filter((n) => n.endsWith('.png'));
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(md).toContain(`](${image})`);
    expect(job.result?.images).toBe(images.length);
  }, 180_000);

  it('OCRs a scan without a text layer first when ocr is auto', async () => {
    const { job, body } = await convert(corpusFile('ocrmypdf__c02-22.pdf'), {}, 240);
    expect(job.result?.ocr_pages).toEqual([1]);
    const md = body.toString('utf8');
    expect(md.split(/\s+/).length).toBeGreaterThan(50);
    // The OCR layer's glyph-less font calls itself monospaced: its lines are still text, not code.
    expect(md).not.toContain('`');
    const off = await convert(corpusFile('ocrmypdf__c02-22.pdf'), { ocr: 'off' });
    expect(off.job.result?.ocr_pages).toEqual([]);
    expect(off.body.toString('utf8').trim()).toBe('');
  }, 300_000);

  it('converts without OCR, and says why, a scan too large to OCR', async () => {
    const { job } = await convert(corpusFile('ocrmypdf__poster.pdf'), {});
    expect(job.result).toMatchObject({ ocr_pages: [], ocr_skipped: 'limit_page_pixels_exceeded', pages: 1 });
  }, 180_000);

  it('runs as a step after ocr', async () => {
    const form = new FormData();
    form.set(
      'steps',
      JSON.stringify([{ tool: 'ocr' }, { tool: 'pdf-to-markdown', options: { format: 'json' } }]),
    );
    const scan = corpusFile('ocrmypdf__c02-22.pdf');
    form.append('file', new Blob([readFileSync(scan)]), path.basename(scan));
    const created = await quire.client.fetch('/api/v1/jobs', { method: 'POST', body: form });
    expect(created.status).toBe(201);
    const job = await quire.client.waitFor(((await created.json()) as { id: string }).id, 240);
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    // The OCR step gave the page its text layer, so the conversion needed no OCR of its own.
    expect(job.result?.ocr_pages).toEqual([]);
    const doc = JSON.parse((await quire.client.download(job.id)).body.toString('utf8')) as {
      blocks: unknown[];
    };
    expect(doc.blocks.length).toBeGreaterThan(3);
  }, 300_000);

  it('fails a file that is not a PDF inside with pdf_corrupt', async () => {
    const job = await quire.client.run({
      tool: 'pdf-to-markdown',
      files: [corpusFile('ocrmypdf__invalid.pdf')],
    });
    expect(job.status).toBe('failed');
    expect(job.error?.code).toMatch(/^(pdf_corrupt|unsupported_file)$/);
  });
});
