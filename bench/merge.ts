// Merge with bookmarks vs raw qpdf (issue 16, must-hold 2): the 10 corpus PDFs with `bookmarks:
// keep` and `none`, and two small PDFs, each full flow interleaved with the raw `qpdf --empty
// --pages … --` it is built on; plus the job's own run time from /metrics. The verdicts use the
// Prefer-wait flow (create held until the job ends → download), the small case the one-request flow
// (POST /run, the result in its answer); the long-poll flow (create → GET
// ?wait → download) runs beside it and gives the upload's own time.
import path from 'node:path';
import { BenchClient, metricSum, scrapeMetrics } from './support/client.js';
import { corpusFile, MERGE_INPUTS, QPDF_OK } from './support/paths.js';
import { runRawOk } from './support/raw.js';
import { startServer } from './support/server.js';
import { fmt, median } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const RUNS = 7;

/** Two small PDFs, one with bookmarks (named destinations), so the small case writes an outline. */
const SMALL_INPUTS = ['pypdf-samples__pdflatex-4-pages.pdf', 'pypdf-samples__pdflatex-outline.pdf'].map(
  corpusFile,
);

interface Case {
  label: string;
  options: Record<string, unknown>;
  files: string[];
  /** Largest full-flow / raw ratio allowed. */
  target: number;
  /**
   * The verdict on the one-request flow (POST /run, docs/api.md §2), the documented flow for a small
   * job; the others keep the Prefer-wait flow's verdict. Every case measures both.
   */
  verdictOnRun?: true;
}

const CASES: Case[] = [
  { label: '10 corpus PDFs, bookmarks: keep', options: {}, files: MERGE_INPUTS, target: 1.3 },
  {
    label: '10 corpus PDFs, bookmarks: none',
    options: { bookmarks: 'none' },
    files: MERGE_INPUTS,
    target: 1.15,
  },
  { label: '2 small PDFs, bookmarks: keep', options: {}, files: SMALL_INPUTS, target: 3, verdictOnRun: true },
];

/** The raw command, with the flag the adapter adds (src/engines/qpdf/qpdf.ts `merge`). */
const rawArgv = (files: readonly string[], out: string) => [
  'qpdf',
  '--empty',
  '--remove-unreferenced-resources=no',
  '--pages',
  ...files,
  '--',
  out,
];

/** The runner's opening of one input (src/engines/qpdf/opening.ts `open`), run once per input. */
const openArgv = (file: string) => ['qpdf', '--show-npages', '--show-pages', file];

interface Sample {
  /** The Prefer-wait flow, which the verdicts use, and its create request (upload + the job's run). */
  flowMs: number;
  createRunMs: number;
  /** The one-request flow (POST /run answering with the result), run just after it. */
  runMs: number;
  /** The long-poll flow, run just after it. */
  longPollMs: number;
  /** Long-poll flow phases: the multipart upload (create), the long-poll, the link, the body. */
  createMs: number;
  waitMs: number;
  linkMs: number;
  downloadMs: number;
  /** Bytes sent by the create and received by the download, for the transfer rates. */
  uploadBytes: number;
  downloadBytes: number;
  rawMs: number;
  /**
   * The runner's opening pass run raw, one input after another: what a job paid before its merge
   * started until merge opened its inputs beside the merge (still paid when it falls back).
   */
  openMs: number;
  /** Claim to terminal, qpdf time summed, qpdf runs: the job's own share of the flow. */
  jobMs: number;
  qpdfMs: number;
  qpdfRuns: number;
}

async function sample(client: BenchClient, c: Case, dir: string): Promise<Sample> {
  const before = await scrapeMetrics(client.baseUrl);
  const preferWait = await client.flow('merge', c.options, c.files, 'prefer-wait');
  const after = await scrapeMetrics(client.baseUrl);
  const run = await client.runJob('merge', c.options, c.files);
  const flow = await client.flow('merge', c.options, c.files, 'long-poll');
  const delta = (name: string, match: Record<string, string>) =>
    metricSum(after, name, match) - metricSum(before, name, match);
  const raw = await runRawOk(rawArgv(c.files, path.join(dir, 'merged.pdf')), dir, QPDF_OK);
  let openMs = 0;
  for (const file of c.files) openMs += (await runRawOk(openArgv(file), dir, QPDF_OK)).ms;
  return {
    flowMs: preferWait.totalMs,
    createRunMs: preferWait.createMs,
    runMs: run.totalMs,
    longPollMs: flow.totalMs,
    createMs: flow.createMs,
    waitMs: flow.waitMs,
    linkMs: flow.linkMs,
    downloadMs: flow.bodyMs,
    uploadBytes: flow.job.input.files.reduce((sum, f) => sum + f.size, 0),
    downloadBytes: flow.bytes,
    rawMs: raw.ms,
    openMs,
    jobMs: delta('quire_job_run_seconds_sum', { tool: 'merge' }) * 1000,
    qpdfMs: delta('quire_engine_run_seconds_sum', { engine: 'qpdf' }) * 1000,
    qpdfRuns: delta('quire_engine_run_seconds_count', { engine: 'qpdf' }),
  };
}

/** Megabytes per second of a transfer, the unit the upload and download phases are compared in. */
function rate(bytes: number, ms: number): string {
  return `${fmt(bytes / 1e6, 1)} MB at ${fmt(bytes / 1e3 / ms, 0)} MB/s`;
}

export async function mergeBench(): Promise<BenchResult> {
  const server = await startServer('serve', { QUIRE_LOG_LEVEL: 'warn' });
  try {
    const client = new BenchClient(server.baseUrl, server.key);
    const samples = await withTempDir('merge', async (dir) => {
      for (const c of CASES) await sample(client, c, dir); // warm-up: page cache, first-job paths
      const all: Sample[][] = CASES.map(() => []);
      for (let run = 0; run < RUNS; run++) {
        for (const [i, c] of CASES.entries()) all[i]!.push(await sample(client, c, dir));
      }
      return all;
    });

    const lines = [
      `merge: full flow vs raw qpdf, interleaved, medians of ${RUNS}; verdicts on the Prefer-wait flow ` +
        '(create with `Prefer: wait=30` → long-poll only if not ended → download), the long-poll flow beside it',
    ];
    const summary: [string, string][] = [];
    let ok = true;
    CASES.forEach((c, i) => {
      const s = samples[i]!;
      const pick = (f: (x: Sample) => number) => median(s.map(f));
      const preferWait = pick((x) => x.flowMs);
      const run = pick((x) => x.runMs);
      const flow = c.verdictOnRun ? run : preferWait;
      const [judged, other] = c.verdictOnRun
        ? ['one-request flow (POST /run)', `Prefer-wait flow ${fmt(preferWait)} ms`]
        : ['Prefer-wait flow', `one-request flow (POST /run) ${fmt(run)} ms`];
      const raw = pick((x) => x.rawMs);
      const ratio = flow / raw;
      const met = ratio <= c.target;
      ok &&= met;
      lines.push(
        `  ${c.label}: ${judged} ${fmt(flow)} ms vs raw ${fmt(raw)} ms → ${fmt(ratio, 2)}x (target ≤ ${c.target}x, ${met ? 'met' : 'NOT MET'}); ` +
          `${other} → ${fmt(c.verdictOnRun ? preferWait / raw : run / raw, 2)}x (no verdict); ` +
          `long-poll flow ${fmt(pick((x) => x.longPollMs))} ms → ${fmt(pick((x) => x.longPollMs) / raw, 2)}x (no verdict)`,
        `    job (claim → done) ${fmt(pick((x) => x.jobMs))} ms = ${fmt(pick((x) => x.jobMs) / raw, 2)}x raw; ` +
          `the runner's opening pass run raw ${fmt(pick((x) => x.openMs))} ms (not before the merge of a clean job); ` +
          `qpdf ${pick((x) => x.qpdfRuns)} runs, ${fmt(pick((x) => x.qpdfMs))} ms summed; ` +
          `Prefer-wait create+run ${fmt(pick((x) => x.createRunMs))} ms; ` +
          `long-poll flow phases: create ${fmt(pick((x) => x.createMs))} ms (${rate(
            s[0]!.uploadBytes,
            pick((x) => x.createMs),
          )}), ` +
          `wait ${fmt(pick((x) => x.waitMs))} ms, link ${fmt(pick((x) => x.linkMs))} ms, ` +
          `download ${fmt(pick((x) => x.downloadMs))} ms (${rate(
            s[0]!.downloadBytes,
            pick((x) => x.downloadMs),
          )}); ` +
          `Prefer-wait flow runs [${s.map((x) => fmt(x.flowMs, 0)).join(', ')}] raw [${s.map((x) => fmt(x.rawMs, 0)).join(', ')}]`,
      );
      summary.push([
        c.label,
        `${fmt(flow)} vs ${fmt(raw)} ms = ${fmt(ratio, 2)}x (≤ ${c.target}x, ${judged})`,
      ]);
    });
    return { name: 'merge', lines, summary, ok };
  } catch (error) {
    process.stderr.write(`server output (tail):\n${server.output().slice(-4000)}\n`);
    throw error;
  } finally {
    await server.stop();
  }
}
