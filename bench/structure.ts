// pdf-to-markdown against its ground truth (bench/structure/sources: 20 HTML documents and 6 flat
// OpenDocument texts) and against the candidate engines measured before choosing one. Each source is
// rendered to PDF through Quire's own html-to-pdf or office-to-pdf (the .fodt packed into an .odt by
// structure/pack_odt.py), and "scanned": its pages rasterised at 200 dpi (pdftoppm), given noise
// (structure/scan.py) and put back together by images-to-pdf. The chosen engine runs through the
// whole flow (pdf-to-markdown with `ocr: auto`, `drop_headers_footers`); the candidates run on the
// same PDFs outside Quire, on the scans after Quire's `ocr`. structure/score.py scores each Markdown
// against its source. Targets (issue 30): born-digital text similarity ≥ 0.97, headings F1 ≥ 0.9,
// table cells ≥ 0.9; scanned text similarity ≥ 0.9, over all documents and over each kind of source.
// QUIRE_BENCH_STRUCTURE_SOURCES (a regular expression over the file names) runs a subset.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BenchClient } from './support/client.js';
import { repoRoot } from './support/paths.js';
import { startServer } from './support/server.js';
import { fmt } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const HERE = path.join(repoRoot, 'bench', 'structure');
const SOURCES = path.join(HERE, 'sources');
const ENGINE_PYTHON = '/opt/quire-pymupdf4llm/bin/python';
const OPENDATALOADER = path.join(repoRoot, '.tmp/structure-candidates/bin/opendataloader-pdf');
const TARGET = { similarity: 0.97, headingsF1: 0.9, cells: 0.9, scannedSimilarity: 0.9 };

interface Score {
  similarity: number;
  headings_true: number;
  headings_found: number;
  headings_matched: number;
  cells_matched: number;
  cells_total: number;
  order_errors: number;
  paragraphs_missing: number;
  paragraphs: number;
}

type Variant = 'born' | 'scanned';
type Kind = 'html' | 'office';
const CHOSEN = 'quire (pymupdf4llm rules)';
type Engine = typeof CHOSEN | 'pymupdf4llm layout' | 'opendataloader-pdf';

const score = (source: string, markdown: string): Score =>
  JSON.parse(
    execFileSync('python3', [path.join(HERE, 'score.py'), source, markdown], { encoding: 'utf8' }),
  ) as Score;

/** The source's pages at 200 dpi with noise, back into one PDF through images-to-pdf. */
async function scan(client: BenchClient, pdf: string, dir: string, seed: number): Promise<string> {
  const stem = path.join(dir, path.basename(pdf, '.pdf'));
  execFileSync('pdftoppm', ['-r', '200', '-gray', pdf, stem]);
  const pages = readdirSync(dir)
    .filter((f) => f.startsWith(path.basename(stem)) && f.endsWith('.pgm'))
    .sort();
  const pngs = pages.map((pgm, i) => {
    const png = path.join(dir, pgm.replace(/\.pgm$/, '.png'));
    execFileSync('python3', [path.join(HERE, 'scan.py'), path.join(dir, pgm), png, String(seed * 100 + i)]);
    return png;
  });
  return job(client, 'images-to-pdf', {}, pngs, `${stem}-scanned.pdf`);
}

/** The source rendered to PDF by Quire: HTML through html-to-pdf, a .fodt packed and through office-to-pdf. */
async function render(client: BenchClient, source: string, work: string): Promise<string> {
  const stem = path.join(work, path.basename(source).replace(/\.(html|fodt)$/, ''));
  if (source.endsWith('.html')) return job(client, 'html-to-pdf', {}, [source], `${stem}.pdf`);
  execFileSync('python3', [path.join(HERE, 'pack_odt.py'), source, `${stem}.odt`]);
  return job(client, 'office-to-pdf', {}, [`${stem}.odt`], `${stem}.pdf`);
}

async function job(
  client: BenchClient,
  tool: string,
  options: Record<string, unknown>,
  files: string[],
  out: string,
): Promise<string> {
  const { job } = await client.flow(tool, options, files, 'long-poll');
  await client.save(job.id, out);
  return out;
}

function candidates(pdf: string, dir: string): Array<[Engine, string]> {
  mkdirSync(dir, { recursive: true });
  const stem = path.join(dir, path.basename(pdf, '.pdf'));
  const out: Array<[Engine, string]> = [];
  execFileSync(ENGINE_PYTHON, [path.join(HERE, 'candidates.py'), 'layout', pdf, `${stem}.layout.md`]);
  out.push(['pymupdf4llm layout', `${stem}.layout.md`]);
  if (existsSync(OPENDATALOADER)) {
    const odl = path.join(dir, 'odl');
    execFileSync(OPENDATALOADER, ['-q', '-f', 'markdown', '-o', odl, pdf]);
    out.push(['opendataloader-pdf', path.join(odl, `${path.basename(pdf, '.pdf')}.md`)]);
  }
  return out;
}

interface Totals {
  scores: Score[];
  seconds: number;
  pages: number;
}

/** Totals by `engine|variant` over every document, and for the chosen engine by `engine|variant|kind`. */
type Tally = Map<string, Totals>;

function tally(totals: Tally, key: string, s: Score, seconds: number, pages: number) {
  const t = totals.get(key) ?? { scores: [], seconds: 0, pages: 0 };
  t.scores.push(s);
  t.seconds += seconds;
  t.pages += pages;
  totals.set(key, t);
}

function summarise(t: Totals) {
  const sum = (k: keyof Score) => t.scores.reduce((n, s) => n + s[k], 0);
  const precision = sum('headings_matched') / Math.max(1, sum('headings_found'));
  const recall = sum('headings_matched') / Math.max(1, sum('headings_true'));
  return {
    similarity: sum('similarity') / t.scores.length,
    minSimilarity: Math.min(...t.scores.map((s) => s.similarity)),
    precision,
    recall,
    f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0,
    cells: sum('cells_matched') / Math.max(1, sum('cells_total')),
    orderErrors: sum('order_errors'),
    missing: sum('paragraphs_missing'),
    paragraphs: sum('paragraphs'),
    secondsPerPage: t.pages > 0 ? t.seconds / t.pages : Number.NaN,
  };
}

/** One source: rendered, scanned, converted by Quire and by the candidates, each output scored. */
async function measureOne(client: BenchClient, source: string, work: string, seed: number, totals: Tally) {
  const kind: Kind = source.endsWith('.fodt') ? 'office' : 'html';
  const born = await render(client, source, work);
  const scanned = await scan(client, born, work, seed);
  const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [born], { encoding: 'utf8' }))?.[1]);
  for (const [variant, pdf] of [
    ['born', born],
    ['scanned', scanned],
  ] as const) {
    const started = performance.now();
    const md = await job(client, 'pdf-to-markdown', { drop_headers_footers: true }, [pdf], `${pdf}.quire.md`);
    const seconds = (performance.now() - started) / 1000;
    const s = score(source, md);
    tally(totals, `${CHOSEN}|${variant}`, s, seconds, pages);
    tally(totals, `${CHOSEN}|${variant}|${kind}`, s, seconds, pages);
    const text = variant === 'born' ? pdf : await job(client, 'ocr', {}, [pdf], `${pdf}.ocr.pdf`);
    for (const [engine, out] of candidates(text, path.join(work, variant)))
      tally(totals, `${engine}|${variant}`, score(source, out), 0, 0);
  }
}

function meetsTargets(variant: Variant, s: ReturnType<typeof summarise>): boolean {
  if (variant === 'scanned') return s.similarity >= TARGET.scannedSimilarity;
  return s.similarity >= TARGET.similarity && s.f1 >= TARGET.headingsF1 && s.cells >= TARGET.cells;
}

function report(totals: Tally): BenchResult {
  const lines: string[] = [
    'engine | variant | sources | text similarity (mean, min) | headings P / R / F1 | table cells | order errors | paragraphs missing',
  ];
  let ok = true;
  for (const [key, t] of [...totals].sort(([a], [b]) => a.localeCompare(b))) {
    const [engine, variant, kind] = key.split('|') as [Engine, Variant, Kind | undefined];
    const s = summarise(t);
    lines.push(
      `${engine} | ${variant} | ${kind ?? 'all'} (${t.scores.length}) | ${fmt(s.similarity, 4)}, ${fmt(s.minSimilarity, 4)} | ${fmt(s.precision, 3)} / ${fmt(s.recall, 3)} / ${fmt(s.f1, 3)} | ${fmt(s.cells, 3)} | ${s.orderErrors} | ${s.missing} of ${s.paragraphs}` +
        (Number.isNaN(s.secondsPerPage) ? '' : ` | ${fmt(s.secondsPerPage, 2)} s/page through the flow`),
    );
    if (engine === CHOSEN) ok &&= meetsTargets(variant, s);
  }
  const quire = (v: Variant) => summarise(totals.get(`${CHOSEN}|${v}`)!);
  return {
    name: 'structure',
    lines,
    summary: [
      ['born-digital text similarity', `${fmt(quire('born').similarity, 4)} (target ≥ ${TARGET.similarity})`],
      ['headings F1', `${fmt(quire('born').f1, 3)} (target ≥ ${TARGET.headingsF1})`],
      ['table cells', `${fmt(quire('born').cells, 3)} (target ≥ ${TARGET.cells})`],
      [
        'scanned text similarity',
        `${fmt(quire('scanned').similarity, 4)} (target ≥ ${TARGET.scannedSimilarity})`,
      ],
    ],
    ok,
  };
}

export async function structure(): Promise<BenchResult> {
  const only = new RegExp(process.env.QUIRE_BENCH_STRUCTURE_SOURCES ?? '');
  return withTempDir('structure', async (dir) => {
    const server = await startServer('serve');
    const totals: Tally = new Map();
    try {
      const client = new BenchClient(server.baseUrl, server.key);
      const sources = readdirSync(SOURCES)
        .filter((f) => /\.(html|fodt)$/.test(f) && only.test(f))
        .sort();
      for (const [i, name] of sources.entries()) {
        const work = path.join(dir, String(i));
        await mkdir(work);
        // The scan's noise is seeded by the source's number, so a subset scans as the whole set does.
        await measureOne(client, path.join(SOURCES, name), work, Number.parseInt(name, 10) - 1, totals);
      }
    } finally {
      await server.stop();
    }
    return report(totals);
  });
}
