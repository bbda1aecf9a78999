// Engine tier: pdf-to-office with real pdf2docx in the document sandbox; the .docx's text, read
// from word/document.xml's <w:t> runs in order, holds the source's paragraphs in their order.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { pdfToOfficeTool } from '../../src/tools/pdf-to-office.js';
import { unzip } from '../support/pdf.js';
import { corpus, runTool } from '../support/tool-context.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

// NFKC: pdf2docx keeps ligatures (ﬁ) that pdftotext spells out (fi).
const squash = (t: string) =>
  t
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, '')
    .toLowerCase();

/** The document body's text: every <w:t> run in document order, XML entities decoded. */
async function docxText(file: string): Promise<string> {
  const parts = await unzip(await readFile(file));
  const xml = parts.get('word/document.xml')!.toString('utf8');
  const runs = [...xml.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]!);
  return runs
    .join('')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');
}

/** Length of the longest strictly increasing subsequence (patience sorting). */
function longestIncreasing(values: readonly number[]): number {
  const tails: number[] = [];
  for (const v of values) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tails[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    tails[lo] = v;
  }
  return tails.length;
}

/**
 * Prose paragraphs as pdftotext finds them (blank-line separated) of at least `minWords` words,
 * mostly words and ending a sentence: tables are cells in the .docx, read in another order.
 */
function sourceParagraphs(file: string, minWords: number): string[] {
  const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/-\n/g, '').replace(/\s+/g, ' ').trim())
    .filter((p) => {
      const words = p.split(' ');
      const prose = words.filter((w) => /^[\p{L}][\p{L}'’-]*[.,;:?!)]?$/u.test(w)).length;
      return words.length >= minWords && prose / words.length >= 0.8 && /[.?!:]$/.test(p);
    });
}

describe('pdf-to-office', () => {
  it.each([
    ['pdfjs__tracemonkey.pdf', 12],
    ['pypdf-samples__crazyones-pdfa.pdf', 5],
  ])(
    'converts %s to a .docx holding its paragraphs in order',
    async (file, minWords) => {
      // pdf2docx lays out every page in Python: a 14-page paper took over a minute on a busy 2-core host.
      const { output, cleanup } = await runTool(pdfToOfficeTool, [file], {}, { timeoutMs: 280_000 });
      cleanups.push(cleanup);
      expect(output.contentType).toBe(
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      );
      const body = squash(await docxText(output.path));
      // Each paragraph's opening words, which pdf2docx must carry over as running text.
      const heads = sourceParagraphs(corpus(file), minWords).map((p) =>
        squash(p.split(' ').slice(0, 8).join(' ')),
      );
      const positions = heads.map((head) => body.indexOf(head));
      expect(positions.filter((at) => at < 0)).toEqual([]);
      // Two-column pages with figures: pdftotext and pdf2docx may place a caption differently, so
      // order is judged by the longest run of paragraphs that keep their relative order.
      expect(longestIncreasing(positions) / heads.length).toBeGreaterThan(0.9);
    },
    300_000,
  );
});
