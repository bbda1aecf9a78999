// Text in the major non-Latin scripts through both document engines: without their fonts Chromium
// drops the glyphs (日本語 printed as 本語) and LibreOffice draws boxes. pdftotext must find each
// word, and every font the PDF uses must be embedded.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createChromium } from '../../src/engines/chromium/chromium.js';
import { createLibreoffice } from '../../src/engines/libreoffice/libreoffice.js';
import { A4_PRINT } from '../support/heavy-fixtures.js';
import { pageText } from '../support/pdf.js';
import { docxParagraphs } from './office-documents.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'quire-hostile-scripts-'));
const WORDS = ['日本語', '中文字', '한국어', 'العربية', 'עברית', 'हिन्दी'];

const chromium = createChromium({
  size: 1,
  recycleAfter: 1000,
  workRoot: path.join(root, 'b'),
  timeoutMs: 60_000,
});
const office = createLibreoffice({
  size: 1,
  recycleAfter: 1000,
  workRoot: path.join(root, 'o'),
  memoryBytes: 2 * 1024 ** 3,
  timeoutMs: 60_000,
});
afterAll(async () => {
  await Promise.all([chromium.close(), office.close()]);
  rmSync(root, { recursive: true, force: true });
});

/** pdffonts rows as name + embedded (columns from the right: emb sub uni object-id generation). */
function fonts(pdf: string): { name: string; embedded: boolean }[] {
  return execFileSync('pdffonts', [pdf], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .slice(2)
    .map((row) => {
      const cols = row.trim().split(/\s+/);
      return { name: cols[0] ?? '', embedded: cols.at(-5) === 'yes' };
    });
}

function expectScripts(pdf: string): void {
  const text = pageText(pdf);
  for (const word of WORDS) expect(text).toContain(word);
  const used = fonts(pdf);
  expect(
    used.every((f) => f.embedded),
    JSON.stringify(used),
  ).toBe(true);
  expect(
    used.some((f) => /Devanagari/.test(f.name)),
    JSON.stringify(used),
  ).toBe(true);
}

describe('non-Latin scripts', () => {
  it('html-to-pdf renders Japanese, Chinese, Korean, Arabic, Hebrew and Devanagari', async () => {
    const site = path.join(root, 'site');
    mkdirSync(site);
    const body = WORDS.map((w) => `<p>${w}</p>`).join('');
    writeFileSync(path.join(site, 'index.html'), `<!doctype html><meta charset="utf-8"><body>${body}</body>`);
    const pdf = path.join(root, 'html.pdf');
    await chromium.htmlToPdf(site, 'index.html', pdf, A4_PRINT, { workDir: root });
    expectScripts(pdf);
  }, 120_000);

  it('office-to-pdf renders the same words from a docx', async () => {
    const input = path.join(root, 'words.docx');
    writeFileSync(input, await docxParagraphs(WORDS));
    const pdf = path.join(root, 'office.pdf');
    await office.toPdf(input, pdf, { landscape: false }, { workDir: root });
    expectScripts(pdf);
  }, 120_000);
});
