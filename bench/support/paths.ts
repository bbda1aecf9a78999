// Where the benchmarks find the built service and the shared corpus, whether they run compiled
// (dist/bench/support) or from source under vitest (bench/support, as test/unit's bench tests do).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder above `from` holding a package.json: the repository. */
function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const repoRoot = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
export const cliEntry = path.join(repoRoot, 'dist/cli/main.js');
export const corpusDir = path.resolve(repoRoot, '../shared/corpus');

export function corpusFile(name: string): string {
  return path.join(corpusDir, name);
}

/** qpdf's exit codes for success: 0, and 3 (succeeded with warnings). */
export const QPDF_OK = [0, 3];

/**
 * Ten real, unencrypted corpus PDFs of 200 KB–2.6 MB, 9 MB and 560 pages in all
 * (MANIFEST.tsv: expected=opens); two of them have bookmarks.
 */
export const MERGE_INPUTS = [
  'pypdf__Seige_of_Vicksburg_Sample_OCR.pdf',
  'pdfplumber__issue-67-example.pdf',
  'pdfcpu__UserFont_Hebrew.pdf',
  'pdfbox__cweb.pdf',
  'ocrmypdf__poster.pdf',
  'pdfjs__issue16553.pdf',
  'pdfjs__tracemonkey.pdf',
  'pdfcpu__HL1396.pdf',
  'pypdf-samples__GeoTopo-komprimiert.pdf',
  'pdfjs__freeculture.pdf',
].map(corpusFile);
