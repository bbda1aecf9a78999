// A mix of cheap jobs on small corpus files, with what each result must hold, for the load and chaos
// tests: results are checked with the real tools (qpdf --check, page counts, ZIP entries), never bytes.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { CreateJobInput } from './client.js';
import { corpusFile } from './corpus.js';
import { toFile, unzip } from './pdf.js';

const exec = promisify(execFile);

export type Expected =
  | { type: 'pdf'; pages: number }
  | { type: 'zip'; entries: number }
  | { type: 'json'; pages: number };

export interface MixedJob {
  input: CreateJobInput;
  expected: Expected;
}

const FOUR_PAGES = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
const ONE_PAGE = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
const SIX_PAGES = corpusFile('pdfbox__with_outline.pdf');

/** qpdf, Ghostscript and poppler tools, each well under a second on these files. */
export const CHEAP_JOBS: MixedJob[] = [
  {
    input: { tool: 'rotate', options: { angle: 90 }, files: [FOUR_PAGES] },
    expected: { type: 'pdf', pages: 4 },
  },
  {
    input: { tool: 'pages', options: { keep: '3,1' }, files: [FOUR_PAGES] },
    expected: { type: 'pdf', pages: 2 },
  },
  {
    input: { tool: 'split', options: { mode: 'each' }, files: [FOUR_PAGES] },
    expected: { type: 'zip', entries: 4 },
  },
  { input: { tool: 'merge', files: [FOUR_PAGES, ONE_PAGE] }, expected: { type: 'pdf', pages: 5 } },
  { input: { tool: 'info', files: [ONE_PAGE] }, expected: { type: 'json', pages: 1 } },
  { input: { tool: 'linearize', files: [SIX_PAGES] }, expected: { type: 'pdf', pages: 6 } },
  {
    input: { tool: 'watermark', options: { text: 'Scale-out' }, files: [FOUR_PAGES] },
    expected: { type: 'pdf', pages: 4 },
  },
  {
    input: { tool: 'compress', options: { level: 'medium' }, files: [ONE_PAGE] },
    expected: { type: 'pdf', pages: 1 },
  },
  {
    input: { tool: 'compress', options: { level: 'lossless' }, files: [corpusFile('qpdf__good17.pdf')] },
    expected: { type: 'pdf', pages: 30 },
  },
  { input: { tool: 'page-numbers', files: [SIX_PAGES] }, expected: { type: 'pdf', pages: 6 } },
  {
    input: {
      tool: 'metadata',
      options: { title: 'chaos' },
      files: [corpusFile('pypdf-samples__habibi.pdf')],
    },
    expected: { type: 'pdf', pages: 1 },
  },
];

/** What is wrong with a result's bytes; [] when it is what the tool promised. */
export async function resultProblems(body: Buffer, expected: Expected): Promise<string[]> {
  if (expected.type === 'json') {
    const report = JSON.parse(body.toString('utf8')) as { pages?: number };
    return report.pages === expected.pages ? [] : [`info reports ${report.pages} pages`];
  }
  if (expected.type === 'zip') {
    const entries = await unzip(body);
    const problems = entries.size === expected.entries ? [] : [`zip has ${entries.size} entries`];
    for (const [name, bytes] of entries) {
      if (!(await qpdfCheck(toFile(bytes)))) problems.push(`zip entry ${name} fails qpdf --check`);
    }
    return problems;
  }
  const file = toFile(body);
  if (!(await qpdfCheck(file))) return ['fails qpdf --check'];
  const count = Number((await exec('qpdf', ['--show-npages', file])).stdout.trim());
  return count === expected.pages ? [] : [`has ${count} pages, wanted ${expected.pages}`];
}

/** `qpdf --check` without blocking the event loop (tests running hundreds of them keep serving). */
async function qpdfCheck(file: string): Promise<boolean> {
  try {
    await exec('qpdf', ['--check', file]);
    return true;
  } catch (error) {
    return (error as { code?: number }).code === 3; // warnings only
  }
}
