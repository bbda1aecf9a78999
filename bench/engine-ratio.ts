// Engine-bound jobs vs the raw engine: (a) a 10-file merge and (b) a medium compress through the
// whole HTTP flow, each against the engine command(s) the tool is built on, run directly.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BenchClient, type FlowMode, type FlowTiming, metricSum, scrapeMetrics } from './support/client.js';
import { RssSampler, readMemory } from './support/memory.js';
import { corpusFile, MERGE_INPUTS, QPDF_OK, repoRoot } from './support/paths.js';
import { peakRssOf, runRawOk } from './support/raw.js';
import { startServer } from './support/server.js';
import { fmt, MiB, median } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const RUNS = 5;

const COMPRESS_INPUT = corpusFile('pdfjs__tracemonkey.pdf');

/** The lossless pass of src/engines/qpdf/qpdf.ts `optimize`. */
const QPDF_OPTIMIZE = [
  '--object-streams=generate',
  '--compress-streams=y',
  '--recompress-flate',
  '--compression-level=9',
];

type PdfwriteArgs = (
  input: string,
  output: string,
  options: { level: string; grayscale: boolean },
) => string[];

/** The exact gs argv the compress tool builds, taken from the built service rather than copied. */
async function loadPdfwriteArgs(): Promise<PdfwriteArgs> {
  const url = pathToFileURL(path.join(repoRoot, 'dist/engines/ghostscript/ghostscript.js')).href;
  return ((await import(url)) as { pdfwriteArgs: PdfwriteArgs }).pdfwriteArgs;
}

interface Case {
  label: string;
  tool: string;
  options: Record<string, unknown>;
  files: string[];
  /** The raw command(s) for one run, in order, with `dir` as scratch space. */
  raw: (dir: string) => string[][];
  rawText: string;
}

/** The summary uses `prefer-wait` (create held until the job ends); `long-poll` is printed beside. */
const MODES: readonly FlowMode[] = ['prefer-wait', 'long-poll'];

interface CaseResult {
  label: string;
  rawMs: number[];
  flows: Record<FlowMode, FlowTiming[]>;
  /** This process's CPU per flow (user + system, all threads: the client, V8's GC, the RSS sampler), by mode. */
  clientCpuMs: Record<FlowMode, number>;
  rawPeakBytes: number | undefined;
}

function clientCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function timeRaw(argvs: string[][], dir: string): Promise<number> {
  let ms = 0;
  for (const argv of argvs) ms += (await runRawOk(argv, dir, QPDF_OK)).ms;
  return ms;
}

/** The two flows alternate, so both see the same machine. */
async function runFlows(client: BenchClient, c: Case): Promise<Pick<CaseResult, 'flows' | 'clientCpuMs'>> {
  for (const mode of MODES) await client.flow(c.tool, c.options, c.files, mode); // warm-up: page cache, first-job paths
  const flows: Record<FlowMode, FlowTiming[]> = { 'prefer-wait': [], 'long-poll': [] };
  const cpu: Record<FlowMode, number> = { 'prefer-wait': 0, 'long-poll': 0 };
  for (let i = 0; i < RUNS; i++) {
    for (const mode of MODES) {
      const before = clientCpuMs();
      flows[mode].push(await client.flow(c.tool, c.options, c.files, mode));
      cpu[mode] += (clientCpuMs() - before) / RUNS;
    }
  }
  return { flows, clientCpuMs: cpu };
}

async function runCase(client: BenchClient, c: Case): Promise<CaseResult> {
  const { flows, clientCpuMs } = await runFlows(client, c);
  return withTempDir('raw', async (dir) => {
    await timeRaw(c.raw(dir), dir);
    const rawMs: number[] = [];
    for (let i = 0; i < RUNS; i++) rawMs.push(await timeRaw(c.raw(dir), dir));
    let rawPeakBytes: number | undefined;
    for (const argv of c.raw(dir)) {
      const peak = await peakRssOf(argv, dir);
      if (peak !== undefined) rawPeakBytes = Math.max(rawPeakBytes ?? 0, peak);
    }
    return { label: c.label, rawMs, flows, clientCpuMs, rawPeakBytes };
  });
}

/** One line per flow mode (Prefer-wait first: the one the summary uses), then the raw command. */
function caseLines(r: CaseResult, c: Case): string[] {
  const raw = median(r.rawMs);
  const facts = r.flows['prefer-wait'][0]?.job.result ?? {};
  const lines = [`  ${r.label}: raw ${fmt(raw)} ms; runs raw [${r.rawMs.map((v) => fmt(v, 0)).join(', ')}]`];
  for (const mode of MODES) {
    const flows = r.flows[mode];
    const flow = median(flows.map((f) => f.totalMs));
    const phases = (pick: (f: FlowTiming) => number) => fmt(median(flows.map(pick)));
    const create = mode === 'prefer-wait' ? 'create+run (Prefer: wait=30)' : 'create';
    lines.push(
      `    ${mode} flow ${fmt(flow)} ms vs raw → ${fmt(flow / raw, 2)}x (+${fmt(flow - raw)} ms); ` +
        `runs [${flows.map((f) => fmt(f.totalMs, 0)).join(', ')}]; phases p50: ${create} ${phases((f) => f.createMs)} ms, ` +
        `long-poll ${phases((f) => f.waitMs)} ms, link ${phases((f) => f.linkMs)} ms, body ${phases((f) => f.bodyMs)} ms; ` +
        `bench process CPU ${fmt(r.clientCpuMs[mode])} ms per flow (all its threads: the client, V8's GC, the RSS sampler)`,
    );
  }
  lines.push(
    `    output ${r.flows['prefer-wait'][0]?.bytes} B; facts ${JSON.stringify(Object.fromEntries(Object.entries(facts).filter(([k]) => !['name', 'content_type', 'expires_at'].includes(k))))}`,
    `    raw: ${c.rawText}; raw engine peak RSS ${r.rawPeakBytes === undefined ? 'n/a' : `${fmt(r.rawPeakBytes / MiB)} MiB`}`,
  );
  return lines;
}

export async function engineRatio(): Promise<BenchResult> {
  const pdfwriteArgs = await loadPdfwriteArgs();
  const mergeRaw = (dir: string) => [
    [
      'qpdf',
      '--empty',
      '--remove-unreferenced-resources=no',
      '--pages',
      ...MERGE_INPUTS,
      '--',
      path.join(dir, 'merged.pdf'),
    ],
  ];
  const compressRaw = (dir: string) => [
    [
      'gs',
      ...pdfwriteArgs(COMPRESS_INPUT, path.join(dir, 'lossy.pdf'), { level: 'medium', grayscale: false }),
    ],
    ['qpdf', path.join(dir, 'lossy.pdf'), ...QPDF_OPTIMIZE, path.join(dir, 'out.pdf')],
  ];
  const cases: Case[] = [
    {
      label: 'merge 10 PDFs (bookmarks: keep, the default)',
      tool: 'merge',
      options: {},
      files: MERGE_INPUTS,
      raw: mergeRaw,
      rawText: 'qpdf --empty --remove-unreferenced-resources=no --pages f1 … f10 -- out.pdf',
    },
    {
      label: 'merge 10 PDFs (bookmarks: none)',
      tool: 'merge',
      options: { bookmarks: 'none' },
      files: MERGE_INPUTS,
      raw: mergeRaw,
      rawText: 'same qpdf command',
    },
    {
      label: `compress medium (${path.basename(COMPRESS_INPUT)})`,
      tool: 'compress',
      options: { level: 'medium' },
      files: [COMPRESS_INPUT],
      raw: compressRaw,
      rawText: 'gs <pdfwriteArgs medium> then qpdf <optimize> on its output',
    },
  ];

  const server = await startServer('serve', { QUIRE_LOG_LEVEL: 'warn' });
  try {
    const client = new BenchClient(server.baseUrl, server.key);
    const rssBefore = readMemory(server.pid)!.rssBytes;
    const sampler = new RssSampler(server.pid, 50).start();
    const before = await scrapeMetrics(server.baseUrl);
    const results: CaseResult[] = [];
    for (const c of cases) results.push(await runCase(client, c));
    sampler.stop();
    const after = await scrapeMetrics(server.baseUrl);
    const hwm = readMemory(server.pid)!.hwmBytes;
    const engineRuns = (engine: string) =>
      metricSum(after, 'quire_engine_run_seconds_count', { engine }) -
      metricSum(before, 'quire_engine_run_seconds_count', { engine });

    const lines = [
      'engine-ratio: engine-bound jobs over HTTP vs the raw engine command (medians); two client flows alternate: ' +
        'prefer-wait (create with `Prefer: wait=30`, long-poll only if not ended; the summary uses it) and long-poll',
    ];
    const summary: [string, string][] = [];
    results.forEach((r, i) => {
      lines.push(...caseLines(r, cases[i]!));
      const flow = median(r.flows['prefer-wait'].map((f) => f.totalMs));
      const raw = median(r.rawMs);
      summary.push([r.label, `${fmt(flow)} vs ${fmt(raw)} ms = ${fmt(flow / raw, 2)}x (Prefer-wait flow)`]);
    });
    const peak = Math.max(sampler.peakRssBytes, hwm);
    lines.push(
      `  engine runs in the server during the cases: qpdf ${engineRuns('qpdf')}, ghostscript ${engineRuns('ghostscript')}`,
      `  server RSS before ${fmt(rssBefore / MiB)} MiB, peak ${fmt(peak / MiB)} MiB (sampled max ${fmt(sampler.peakRssBytes / MiB)}, VmHWM ${fmt(hwm / MiB)})`,
    );
    summary.push(['server peak RSS', `${fmt(peak / MiB)} MiB`]);
    return { name: 'engine-ratio', lines, summary, ok: undefined };
  } catch (error) {
    process.stderr.write(`server output (tail):\n${server.output().slice(-4000)}\n`);
    throw error;
  } finally {
    await server.stop();
  }
}
