// Engine tier: pdf-to-office with real pdf2docx in the document sandbox; the .docx, read by
// python-docx, holds every prose paragraph of a single-column source in the source's order.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PDF2DOCX_VENV } from '../../src/engines/pdf2docx/pdf2docx.js';
import { pdfToOfficeTool } from '../../src/tools/pdf-to-office.js';
import { corpus } from '../support/tool-context.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const runs = useToolRuns();

// NFKC: pdf2docx keeps ligatures (ﬁ) that pdftotext spells out (fi); punctuation and spacing
// (curly quotes pdftotext drops, line breaks) are not what this test judges.
const squash = (t: string) =>
  t
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, '')
    .toLowerCase();

/**
 * The document's text as python-docx reads it: every paragraph in document order, those inside
 * table cells included (pdf2docx lays some blocks out as tables). python-docx is a dependency of
 * pdf2docx, so the engine's venv (scripts/setup.sh) already holds it.
 */
function docxText(file: string): string {
  const script = [
    'import sys, docx',
    'from docx.oxml.ns import qn',
    'from docx.text.paragraph import Paragraph',
    'd = docx.Document(sys.argv[1])',
    "print('\\n'.join(Paragraph(p, d).text for p in d.element.body.iter(qn('w:p'))))",
  ].join('\n');
  return execFileSync(path.join(PDF2DOCX_VENV, 'bin/python'), ['-I', '-c', script, file], {
    encoding: 'utf8',
  });
}

/**
 * Prose paragraphs as pdftotext finds them (blank-line separated): at least `minWords` words,
 * mostly words, ending a sentence. Page numbers, headings and contents lines are not paragraphs.
 */
function sourceParagraphs(file: string, minWords: number): string[] {
  const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/-\n/g, '').replace(/\s+/g, ' ').trim())
    .filter((p) => {
      const words = p.split(' ');
      const prose = words.filter((w) => /^[\p{L}][\p{L}'’-]*[.,;:?!)]?$/u.test(w)).length;
      return words.length >= minWords && prose / words.length >= 0.8 && /[.?!:]\s*\d*$/.test(p);
    });
}

describe('pdf-to-office', () => {
  // Single-column prose: a 4-page LaTeX document of nine sections that repeat one paragraph (so
  // each paragraph must be found after the one before it, not just anywhere), and a one-page
  // essay that pdftotext reads as one block. The count guards against a filter that drops all.
  it.each([
    ['pypdf-samples__pdflatex-outline.pdf', 12, 9],
    ['pypdf-samples__crazyones-pdfa.pdf', 5, 1],
  ])(
    'converts %s to a .docx holding every paragraph in order',
    async (file, minWords, count) => {
      const { output } = await runs.run(pdfToOfficeTool, [file], {}, { timeoutMs: 60_000 });
      expect(output.contentType).toBe(
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      );
      const body = squash(docxText(output.path));
      const paragraphs = sourceParagraphs(corpus(file), minWords).map(squash);
      expect(paragraphs).toHaveLength(count);
      let cursor = 0;
      const outOfOrder: string[] = [];
      for (const paragraph of paragraphs) {
        const at = body.indexOf(paragraph, cursor);
        if (at < 0) outOfOrder.push(paragraph.slice(0, 60));
        else cursor = at + paragraph.length;
      }
      expect(outOfOrder).toEqual([]);
    },
    90_000,
  );
});
