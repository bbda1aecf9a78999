// Per-job overhead: ~50 sequential `rotate` jobs on a one-page PDF through the whole HTTP flow,
// against the same qpdf rotation run directly. The difference of the medians is what the service
// adds per job (upload, queue, claim, work dir, extra engine runs, result store, download).
import path from 'node:path';
import { BenchClient, type FlowTiming, metricSum, scrapeMetrics } from './support/client.js';
import { RssSampler, readMemory } from './support/memory.js';
import { corpusFile } from './support/paths.js';
import { runRawOk } from './support/raw.js';
import { startServer } from './support/server.js';
import { fmt, MiB, median, percentile } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const INPUT = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
const WARMUP = 5;
const RUNS = 50;
const TARGET_OVERHEAD_MS = 30;
/** What the service wraps every engine in (src/process/limits.ts): setpriv, then prlimit --as. */
export const SERVICE_WRAPPER = [
  '/usr/bin/setpriv',
  '--pdeathsig',
  'KILL',
  '--',
  '/usr/bin/prlimit',
  '--as=2147483648',
  '--',
];

export const QPDF_OK = [0, 3];

/**
 * What the rotate tool runs for one job: a page count, then the rotation with --progress (the
 * service runs each under SERVICE_WRAPPER; src/tools/rotate.ts, src/engines/qpdf/qpdf.ts).
 */
export function rotateToolArgvs(input: string, out: string): string[][] {
  return [
    ['qpdf', '--show-npages', input],
    ['qpdf', '--progress', input, '--rotate=+90:1-z', out],
  ];
}

interface RawTimes {
  raw: number[];
  /** The tool's two qpdf runs under the service's setpriv+prlimit wrapper. */
  serviceLike: number[];
  /** The same two qpdf runs without the wrapper: the difference is the wrapper's exec cost. */
  unwrapped: number[];
}

async function rawRuns(dir: string): Promise<RawTimes> {
  const out = path.join(dir, 'out.pdf');
  const rawArgv = ['qpdf', '--rotate=+90', INPUT, out];
  const toolArgvs = rotateToolArgvs(INPUT, out);
  const wrappedArgvs = toolArgvs.map((argv) => [...SERVICE_WRAPPER, ...argv]);
  for (let i = 0; i < WARMUP; i++) await runRawOk(rawArgv, dir, QPDF_OK);
  const raw: number[] = [];
  for (let i = 0; i < RUNS; i++) raw.push((await runRawOk(rawArgv, dir, QPDF_OK)).ms);
  const sequence = async (argvs: string[][]) => {
    let ms = 0;
    for (const argv of argvs) ms += (await runRawOk(argv, dir, QPDF_OK)).ms;
    return ms;
  };
  const serviceLike: number[] = [];
  const unwrapped: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    serviceLike.push(await sequence(wrappedArgvs));
    unwrapped.push(await sequence(toolArgvs));
  }
  return { raw, serviceLike, unwrapped };
}

export async function jobOverhead(): Promise<BenchResult> {
  const server = await startServer('serve', { QUIRE_LOG_LEVEL: 'warn' });
  try {
    const client = new BenchClient(server.baseUrl, server.key);
    const options = { angle: 90 };
    for (let i = 0; i < WARMUP; i++) await client.flow('rotate', options, [INPUT]);

    const before = await scrapeMetrics(server.baseUrl);
    const rssBefore = readMemory(server.pid)!.rssBytes;
    const sampler = new RssSampler(server.pid, 50).start();
    const flows: FlowTiming[] = [];
    for (let i = 0; i < RUNS; i++) flows.push(await client.flow('rotate', options, [INPUT]));
    sampler.stop();
    const after = await scrapeMetrics(server.baseUrl);
    const hwm = readMemory(server.pid)!.hwmBytes;

    const { raw, serviceLike, unwrapped } = await withTempDir('rotate', rawRuns);

    const total = flows.map((f) => f.totalMs);
    const flowP50 = median(total);
    const rawP50 = median(raw);
    const overhead = flowP50 - rawP50;
    const phase = (pick: (f: FlowTiming) => number) => fmt(median(flows.map(pick)));
    const totalOf = (name: string, match: Record<string, string>) =>
      (metricSum(after, `${name}_sum`, match) - metricSum(before, `${name}_sum`, match)) * 1000;
    const countOf = (name: string, match: Record<string, string>) =>
      metricSum(after, `${name}_count`, match) - metricSum(before, `${name}_count`, match);
    const jobRunMean = totalOf('quire_job_run_seconds', { tool: 'rotate' }) / RUNS;
    const engineRuns = countOf('quire_engine_run_seconds', { engine: 'qpdf' });
    const engineMean = totalOf('quire_engine_run_seconds', { engine: 'qpdf' }) / RUNS;
    /** Mean server-side time of a route in ms (Fastify's reply.elapsedTime). */
    const route = (method: string, url: string) =>
      totalOf('quire_http_request_duration_seconds', { method, route: url }) /
      countOf('quire_http_request_duration_seconds', { method, route: url });
    const serviceLikeP50 = median(serviceLike);
    const unwrappedP50 = median(unwrapped);

    const lines = [
      `job-overhead: ${RUNS} sequential rotate jobs (${path.basename(INPUT)}) over HTTP vs \`qpdf --rotate=+90\``,
      `  flow p50 ${fmt(flowP50)} ms, p90 ${fmt(percentile(total, 90))} ms, min ${fmt(Math.min(...total))} ms; ` +
        `raw qpdf p50 ${fmt(rawP50)} ms; ratio ${fmt(flowP50 / rawP50, 2)}x; ` +
        `overhead ${fmt(overhead)} ms (target < ${TARGET_OVERHEAD_MS} ms: ${overhead < TARGET_OVERHEAD_MS ? 'met' : 'NOT met'})`,
      `  client phases p50: create ${phase((f) => f.createMs)} ms, wait ${phase((f) => f.waitMs)} ms, ` +
        `link ${phase((f) => f.linkMs)} ms, body ${phase((f) => f.bodyMs)} ms`,
      `  server (from /metrics, mean per job): job run ${fmt(jobRunMean)} ms, qpdf runs ${fmt(engineRuns / RUNS, 1)} ` +
        `per job taking ${fmt(engineMean)} ms in all; POST /jobs ${fmt(route('POST', '/api/v1/jobs'))} ms, ` +
        `GET /jobs/:id?wait ${fmt(route('GET', '/api/v1/jobs/:id'))} ms, GET …/download ` +
        `${fmt(route('GET', '/api/v1/jobs/:id/download'))} ms, GET /files/:token ${fmt(route('GET', '/api/v1/files/:token'))} ms`,
      `  the tool's two qpdf runs (--show-npages, then --progress --rotate) run directly: p50 ${fmt(serviceLikeP50)} ms ` +
        `under setpriv+prlimit as the service runs them, ${fmt(unwrappedP50)} ms without the wrapper`,
      `  overhead split: extra engine work ${fmt(serviceLikeP50 - rawP50)} ms (second qpdf run ${fmt(unwrappedP50 - rawP50)} ms, ` +
        `wrapper ${fmt(serviceLikeP50 - unwrappedP50)} ms); everything else (HTTP, upload, queue, blob copies) ` +
        `${fmt(flowP50 - serviceLikeP50)} ms`,
      `  server RSS before ${fmt(rssBefore / MiB)} MiB, peak sampled ${fmt(sampler.peakRssBytes / MiB)} MiB, VmHWM ${fmt(hwm / MiB)} MiB`,
    ];
    return {
      name: 'job-overhead',
      lines,
      summary: [
        ['flow p50 / p90', `${fmt(flowP50)} / ${fmt(percentile(total, 90))} ms`],
        ['raw qpdf p50', `${fmt(rawP50)} ms`],
        ['ratio flow / raw', `${fmt(flowP50 / rawP50, 2)}x`],
        ['per-job overhead p50', `${fmt(overhead)} ms (target < ${TARGET_OVERHEAD_MS})`],
        ['server peak RSS', `${fmt(Math.max(sampler.peakRssBytes, hwm) / MiB)} MiB`],
      ],
      ok: overhead < TARGET_OVERHEAD_MS,
    };
  } catch (error) {
    process.stderr.write(`server output (tail):\n${server.output().slice(-4000)}\n`);
    throw error;
  } finally {
    await server.stop();
  }
}
