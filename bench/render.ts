// pdf-to-images through the whole HTTP flow vs each raw engine rendering the same pages at the
// same dpi and format, interleaved. Target: Quire ≤ 1.1× the fastest raw command, PNG and JPEG.
import path from 'node:path';
import { BenchClient } from './support/client.js';
import { RssSampler, readMemory } from './support/memory.js';
import { corpusFile } from './support/paths.js';
import { reapedChildrenCpuMs, treeCpuMs } from './support/process-tree.js';
import { runRawOk } from './support/raw.js';
import { startServer } from './support/server.js';
import { fmt, MiB, median } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const RUNS = 5;
const TARGET = 1.1;
/** pdfjs__tracemonkey.pdf: 14 letter pages of text and line art (MANIFEST.tsv), the issue's file. */
const INPUT = corpusFile('pdfjs__tracemonkey.pdf');
const DPI = 150;
const QUALITY = 85;
/** Ghostscript's default is no anti-aliasing; with these it draws text and art as poppler does. */
const GS_AA = ['-dTextAlphaBits=4', '-dGraphicsAlphaBits=4'];

type Format = 'png' | 'jpeg';

interface Reference {
  label: string;
  /** False for output visibly below Quire's (aliased text): reported, and still the target's bar. */
  antialiased: boolean;
  argv: (dir: string) => string[];
}

function references(format: Format): Reference[] {
  const r = String(DPI);
  const gs = (device: string, extra: string[], dir: string, stem: string) => [
    'gs',
    '-q',
    '-dNOPAUSE',
    '-dBATCH',
    '-dSAFER',
    `-sDEVICE=${device}`,
    `-r${DPI}`,
    ...extra,
    `-sOutputFile=${path.join(dir, `${stem}-%d.${format === 'png' ? 'png' : 'jpg'}`)}`,
    INPUT,
  ];
  const popplerOut = format === 'png' ? ['-png'] : ['-jpeg', '-jpegopt', `quality=${QUALITY}`];
  const gsDevice = format === 'png' ? ['png16m', []] : ['jpeg', [`-dJPEGQ=${QUALITY}`]];
  const [device, deviceArgs] = gsDevice as [string, string[]];
  return [
    {
      label: `pdftoppm ${popplerOut[0]}`,
      antialiased: true,
      argv: (dir) => ['pdftoppm', '-r', r, ...popplerOut, INPUT, path.join(dir, 'ppm')],
    },
    {
      label: `pdftocairo ${popplerOut[0]}`,
      antialiased: true,
      argv: (dir) => ['pdftocairo', '-r', r, ...popplerOut, INPUT, path.join(dir, 'cairo')],
    },
    {
      label: `gs ${device} (default, no anti-aliasing)`,
      antialiased: false,
      argv: (dir) => gs(device, deviceArgs, dir, 'gs'),
    },
    {
      label: `gs ${device} -dTextAlphaBits=4 -dGraphicsAlphaBits=4`,
      antialiased: true,
      argv: (dir) => gs(device, [...deviceArgs, ...GS_AA], dir, 'gsaa'),
    },
  ];
}

interface FormatResult {
  format: Format;
  quireMs: number[];
  /** CPU of the server and every engine it ran, per job: what the load average cannot inflate. */
  quireCpuMs: number[];
  rawMs: Map<string, number[]>;
  rawCpuMs: Map<string, number[]>;
  bytes: number;
}

async function measure(client: BenchClient, serverPid: number, format: Format): Promise<FormatResult> {
  const options = { format, dpi: DPI, quality: QUALITY };
  const refs = references(format);
  return withTempDir(`render-${format}`, async (dir) => {
    // Warm-up: page cache, first-job paths, the engines' own start.
    const warm = await client.flow('pdf-to-images', options, [INPUT]);
    for (const ref of refs) await runRawOk(ref.argv(dir), dir);
    const result: FormatResult = {
      format,
      quireMs: [],
      quireCpuMs: [],
      rawMs: new Map(refs.map((ref) => [ref.label, []])),
      rawCpuMs: new Map(refs.map((ref) => [ref.label, []])),
      bytes: warm.bytes,
    };
    for (let i = 0; i < RUNS; i++) {
      const cpu = treeCpuMs(serverPid);
      result.quireMs.push((await client.flow('pdf-to-images', options, [INPUT])).totalMs);
      result.quireCpuMs.push(treeCpuMs(serverPid) - cpu);
      for (const ref of refs) {
        const rawCpu = reapedChildrenCpuMs();
        result.rawMs.get(ref.label)!.push((await runRawOk(ref.argv(dir), dir)).ms);
        result.rawCpuMs.get(ref.label)!.push(reapedChildrenCpuMs() - rawCpu);
      }
    }
    return result;
  });
}

function report(result: FormatResult, lines: string[], summary: [string, string][]): boolean {
  const refs = references(result.format);
  const quire = median(result.quireMs);
  const medians = refs.map((ref) => ({ ref, ms: median(result.rawMs.get(ref.label)!) }));
  const fastest = medians.reduce((a, b) => (b.ms < a.ms ? b : a));
  const fastestAa = medians.filter((m) => m.ref.antialiased).reduce((a, b) => (b.ms < a.ms ? b : a));
  const ratio = quire / fastest.ms;
  lines.push(
    `  ${result.format}: Quire full flow ${fmt(quire)} ms, CPU ${fmt(median(result.quireCpuMs))} ms ` +
      `(runs ${result.quireMs.map((v) => fmt(v, 0)).join(', ')}; ZIP ${result.bytes} B)`,
    ...medians.map(
      ({ ref, ms }) =>
        `    ${ref.label}: ${fmt(ms)} ms, CPU ${fmt(median(result.rawCpuMs.get(ref.label)!))} ms → ` +
        `Quire ${fmt(quire / ms, 2)}x (runs ${result.rawMs
          .get(ref.label)!
          .map((v) => fmt(v, 0))
          .join(', ')})`,
    ),
    `    fastest: ${fastest.ref.label} → ${fmt(ratio, 2)}x (target ≤ ${TARGET}x); fastest anti-aliased: ` +
      `${fastestAa.ref.label} → ${fmt(quire / fastestAa.ms, 2)}x`,
  );
  summary.push([
    `${result.format} vs fastest (${fastest.ref.label})`,
    `${fmt(quire)} vs ${fmt(fastest.ms)} ms = ${fmt(ratio, 2)}x`,
  ]);
  return ratio <= TARGET;
}

export async function render(): Promise<BenchResult> {
  const server = await startServer('serve', { QUIRE_LOG_LEVEL: 'warn' });
  try {
    const client = new BenchClient(server.baseUrl, server.key);
    const rssBefore = readMemory(server.pid)!.rssBytes;
    const sampler = new RssSampler(server.pid, 50).start();
    const results: FormatResult[] = [];
    for (const format of ['png', 'jpeg'] as const) results.push(await measure(client, server.pid, format));
    sampler.stop();
    const peak = Math.max(sampler.peakRssBytes, readMemory(server.pid)!.hwmBytes);
    const lines = [
      `render: pdf-to-images, ${path.basename(INPUT)} (14 pages) at ${DPI} dpi, JPEG quality ${QUALITY}; ` +
        `medians of ${RUNS} interleaved runs`,
    ];
    const summary: [string, string][] = [];
    let ok = true;
    for (const result of results) ok = report(result, lines, summary) && ok;
    lines.push(`  server RSS before ${fmt(rssBefore / MiB)} MiB, peak ${fmt(peak / MiB)} MiB`);
    summary.push(['server peak RSS', `${fmt(peak / MiB)} MiB`]);
    return { name: 'render', lines, summary, ok };
  } catch (error) {
    process.stderr.write(`server output (tail):\n${server.output().slice(-4000)}\n`);
    throw error;
  } finally {
    await server.stop();
  }
}
