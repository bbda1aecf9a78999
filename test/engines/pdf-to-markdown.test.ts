// Engine tier: pdf-to-markdown on real pymupdf4llm in the document sandbox, past one run of pages: a
// 52-page input is converted in two runs whose JSON blocks join into one valid document, in page
// order, with progress rising page by page.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { PAGES_PER_RUN } from '../../src/tools/pdf-to-markdown/runs.js';
import { pdfToMarkdownTool } from '../../src/tools/pdf-to-markdown/tool.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const runs = useToolRuns();

/** 52 light pages (a heading and a line each), more than one run and cheap to convert. */
async function longDocument(): Promise<string> {
  const pdf = await PDFDocument.create();
  const [bold, body] = [
    await pdf.embedFont(StandardFonts.HelveticaBold),
    await pdf.embedFont(StandardFonts.Helvetica),
  ];
  for (let n = 1; n <= 52; n++) {
    const page = pdf.addPage([300, 200]);
    page.drawText(`Part ${n}`, { x: 20, y: 160, size: 18, font: bold });
    page.drawText(`The text of page ${n} in plain words.`, { x: 20, y: 120, size: 10, font: body });
  }
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'quire-md-')), 'long.pdf');
  writeFileSync(out, await pdf.save());
  return out;
}

describe('pdf-to-markdown in runs of pages', () => {
  it('joins the JSON blocks of two runs into one document in page order', async () => {
    expect(PAGES_PER_RUN).toBeLessThan(52);
    const { output, emitted } = await runs.run(pdfToMarkdownTool, [await longDocument()], {
      format: 'json',
    });
    const doc = JSON.parse(readFileSync(output.path, 'utf8')) as {
      pages: number;
      blocks: Array<{ page: number }>;
    };
    expect(doc.pages).toBe(52);
    const pages = doc.blocks.map((b) => b.page);
    expect(pages[0]).toBe(1);
    expect(pages.at(-1)).toBe(52);
    expect([...pages].sort((a, b) => a - b)).toEqual(pages);
    expect(new Set(pages).size).toBe(52);
    expect(doc.blocks.filter((b) => (b as { type?: string }).type === 'heading')).toHaveLength(52);
    expect(output.facts).toMatchObject({ pages: 52, blocks: doc.blocks.length });
    const percents = emitted.map((p) => p.percent);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
    // The convert step (50–100 %) follows the pages across both runs: 50 of 52 pages after the
    // first run (98 %), then its end (99, never 100); between them whatever the reads caught.
    expect(percents.filter((p) => p > 50)).toEqual(expect.arrayContaining([98, 99]));
  }, 240_000);
});
