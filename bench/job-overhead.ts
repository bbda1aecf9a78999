// The cheap job (issue 16, must-hold 1): `rotate` of a one-page PDF through the whole HTTP flow
// against the same rotation by qpdf alone, in one run. Sequential jobs give the overhead (difference
// of the medians) and the server's CPU per job; 8 concurrent clients give the throughput, against
// 8 concurrent loops of raw qpdf.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BenchClient, type FlowMode, type FlowTiming, metricSum, scrapeMetrics } from './support/client.js';
import { RssSampler, readMemory } from './support/memory.js';
import { corpusFile, QPDF_OK, repoRoot } from './support/paths.js';
import { descendants, ownCpuMs, parentOf } from './support/process-tree.js';
import { runRawOk } from './support/raw.js';
import { startServer } from './support/server.js';
import { fmt, jobsPerSecond, MiB, median, percentile } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const INPUT = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
const WARMUP = 10;
/**
 * Jobs per flow run by the 8 clients before anything is measured, in batches. V8 compiles the
 * server's hot paths over its first ~1,500 jobs: measured in batches of 200 at 8 clients, the
 * server's CPU per job fell from 5–7 ms to 3.5 ms and the rate rose from 130–155 to 165–180 jobs/s
 * (docs/benchmarks.md). A service in use is past that; the first and last batch are printed.
 */
const WARM_CONCURRENT_JOBS = 960;
const WARM_BATCH = 192;
const RUNS = 60;
const CLIENTS = 8;
/** Jobs (and raw runs) per throughput round; two rounds each, alternating, so load drifts cancel. */
const ROUND_JOBS = 192;
const PER_CLIENT = ROUND_JOBS / CLIENTS;
const TARGET_OVERHEAD_MS = 12;
const TARGET_CPU_MS = 8;
const TARGET_THROUGHPUT = 0.5;

type WithLimits = (
  command: string,
  args: readonly string[],
  limits: { memoryBytes?: number; cpuSeconds?: number },
) => [string, string[]];

/**
 * What the service wraps every engine in: src/process/limits.ts `withLimits` of the built service
 * (dist/), with the default QUIRE_ENGINE_MEMORY_BYTES and the CPU cap of twice
 * QUIRE_ENGINE_TIMEOUT_MS. So it is the exec helper when scripts/build-helpers.sh built it, and
 * util-linux's setpriv + prlimit where it did not, as in the service.
 */
async function serviceWrapper(): Promise<string[]> {
  const url = pathToFileURL(path.join(repoRoot, 'dist/process/limits.js')).href;
  const { withLimits } = (await import(url)) as { withLimits: WithLimits };
  const [file, args] = withLimits('qpdf', [], { memoryBytes: 2 * 1024 * MiB, cpuSeconds: 1200 });
  return [file, ...args.slice(0, -1)]; // everything before the command
}

export const SERVICE_WRAPPER = await serviceWrapper();
/** How the printed lines name it. */
export const SERVICE_WRAPPER_NAME =
  path.basename(SERVICE_WRAPPER[0]!) === 'quire-exec' ? 'the exec helper (quire-exec)' : 'setpriv+prlimit';

/**
 * The engine runs of one rotate job of the whole document (src/tools/rotate.ts): a small, clean
 * input is opened in-process (src/tools/framework/quick-open.ts), so the rotation is the only qpdf run.
 */
export function rotateToolArgvs(input: string, out: string): string[][] {
  return [['qpdf', '--progress', input, '--rotate=+90:1-z', out]];
}

/** Descendants of `pid` whose command line contains `part`. */
function descendantsRunning(pid: number, part: string): number[] {
  return descendants(pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(part);
    } catch {
      return false;
    }
  });
}

/** The service's engine spawner (src/process/spawner/): the Node child of the server that runs main.js. */
const spawnerPids = (serverPid: number) => descendantsRunning(serverPid, 'process/spawner/main.js');
/**
 * The server's qpdf forkserver (src/engines/qpdf/forkserver/), when it is built: the server's own
 * child, not its children (the spare waiting for the next run and the runs carry its command line).
 */
const forkServerPids = (serverPid: number) =>
  descendantsRunning(serverPid, 'quire-qpdf-forkserver').filter((pid) => parentOf(pid) === serverPid);

/**
 * The service's own CPU so far: the server process, its spawner, which starts the engines for it, and
 * the qpdf forkserver the server asks itself, which forks qpdf runs (their own CPU, not the engines', which
 * are the work both sides do: a forked run's CPU is the forkserver's reaped children's). A process
 * replaced between two readings would lose its time, so the benchmark checks they stay the same.
 */
interface CpuClock {
  /** Server, spawner and forkserver together: what the target is stated in. */
  read(): number;
  /** Spawner and forkserver: starting engines. */
  spawner(): number;
  check(): void;
}

function serviceCpuClock(serverPid: number): CpuClock {
  const found = spawnerPids(serverPid);
  if (found.length !== 1)
    throw new Error(`expected one engine spawner under the server, found ${found.length}`);
  const spawner = found[0]!;
  const forkServers = forkServerPids(serverPid);
  const starting = () => ownCpuMs(spawner) + forkServers.reduce((sum, pid) => sum + ownCpuMs(pid), 0);
  return {
    read: () => ownCpuMs(serverPid) + starting(),
    spawner: starting,
    check: () => {
      if (spawnerPids(serverPid).join() !== String(spawner))
        throw new Error('the engine spawner was replaced');
      if (forkServerPids(serverPid).join() !== forkServers.join())
        throw new Error('the qpdf forkserver was replaced');
    },
  };
}

/** This process's CPU (user + system, all threads), in ms: the client's cost per job, plus V8's GC and the RSS sampler. */
function clientCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Per client flow: the verdicts use `prefer-wait` (create held until the job ends, docs/api.md). */
const MODES: readonly FlowMode[] = ['prefer-wait', 'long-poll'];

interface ModeRun {
  flows: FlowTiming[];
  cpuMsPerJob: number;
  spawnerMsPerJob: number;
  clientMsPerJob: number;
}

interface Sequential {
  modes: Record<FlowMode, ModeRun>;
  raw: number[];
}

/**
 * Raw rotation and one flow of each mode alternate, so all see the same machine; the server's and
 * the client's CPU are read around each flow.
 */
async function sequential(client: BenchClient, cpu: CpuClock, dir: string): Promise<Sequential> {
  const rawArgv = ['qpdf', '--rotate=+90', INPUT, path.join(dir, 'raw.pdf')];
  const raw: number[] = [];
  const sums = MODES.map(() => ({ flows: [] as FlowTiming[], server: 0, spawner: 0, client: 0 }));
  for (let i = 0; i < RUNS; i++) {
    raw.push((await runRawOk(rawArgv, dir, QPDF_OK)).ms);
    for (const [m, mode] of MODES.entries()) {
      const sum = sums[m]!;
      const [server, spawner, own] = [cpu.read(), cpu.spawner(), clientCpuMs()];
      sum.flows.push(await client.flow('rotate', { angle: 90 }, [INPUT], mode));
      sum.client += clientCpuMs() - own;
      sum.spawner += cpu.spawner() - spawner;
      sum.server += cpu.read() - server;
    }
  }
  const modes = Object.fromEntries(
    MODES.map((mode, m) => {
      const sum = sums[m]!;
      const run: ModeRun = {
        flows: sum.flows,
        cpuMsPerJob: sum.server / RUNS,
        spawnerMsPerJob: sum.spawner / RUNS,
        clientMsPerJob: sum.client / RUNS,
      };
      return [mode, run];
    }),
  ) as Record<FlowMode, ModeRun>;
  return { modes, raw };
}

interface Rate {
  jobs: number;
  seconds: number;
  serverMs: number;
  clientMs: number;
}

interface Throughput {
  quire: Record<FlowMode, { rate: number; cpuMsPerJob: number; clientMsPerJob: number }>;
  raw: number;
}

async function throughput(client: BenchClient, cpuMs: () => number, dir: string): Promise<Throughput> {
  let rawRuns = 0;
  let rawSeconds = 0;
  const sums = MODES.map((): Rate => ({ jobs: 0, seconds: 0, serverMs: 0, clientMs: 0 }));
  // Each client loop writes its own output file.
  const rawOnce = (n: number) =>
    runRawOk(
      ['qpdf', '--rotate=+90', INPUT, path.join(dir, `raw-${Math.floor(n / PER_CLIENT)}.pdf`)],
      dir,
      QPDF_OK,
    );
  for (let round = 0; round < 2; round++) {
    const rawRate = await jobsPerSecond(CLIENTS, PER_CLIENT, rawOnce);
    rawRuns += ROUND_JOBS;
    rawSeconds += ROUND_JOBS / rawRate;
    for (const [m, mode] of MODES.entries()) {
      const sum = sums[m]!;
      const [server, own] = [cpuMs(), clientCpuMs()];
      const rate = await jobsPerSecond(CLIENTS, PER_CLIENT, () =>
        client.flow('rotate', { angle: 90 }, [INPUT], mode),
      );
      sum.clientMs += clientCpuMs() - own;
      sum.serverMs += cpuMs() - server;
      sum.jobs += ROUND_JOBS;
      sum.seconds += ROUND_JOBS / rate;
    }
  }
  const quire = Object.fromEntries(
    MODES.map((mode, m) => {
      const sum = sums[m]!;
      const perJob = { rate: sum.jobs / sum.seconds, cpuMsPerJob: sum.serverMs / sum.jobs };
      return [mode, { ...perJob, clientMsPerJob: sum.clientMs / sum.jobs }];
    }),
  ) as Throughput['quire'];
  return { quire, raw: rawRuns / rawSeconds };
}

interface WarmUp {
  jobs: number;
  first: { msPerJob: number; rate: number };
  last: { msPerJob: number; rate: number };
}

/** Both flows, batch by batch; the server's CPU per job of the first and last Prefer-wait batch. */
async function warmUp(client: BenchClient, serverCpuMs: () => number): Promise<WarmUp> {
  const batches: { msPerJob: number; rate: number }[] = [];
  for (let done = 0; done < WARM_CONCURRENT_JOBS; done += WARM_BATCH) {
    for (const mode of MODES) {
      const before = serverCpuMs();
      const rate = await jobsPerSecond(CLIENTS, WARM_BATCH / CLIENTS, () =>
        client.flow('rotate', { angle: 90 }, [INPUT], mode),
      );
      if (mode === 'prefer-wait') batches.push({ msPerJob: (serverCpuMs() - before) / WARM_BATCH, rate });
    }
  }
  return { jobs: WARM_CONCURRENT_JOBS * MODES.length, first: batches[0]!, last: batches.at(-1)! };
}

interface Split {
  serviceLike: number;
  unwrapped: number;
}

/** The tool's qpdf runs, directly, under the service's wrapper and without it. */
async function engineSplit(dir: string): Promise<Split> {
  const toolArgvs = rotateToolArgvs(INPUT, path.join(dir, 'tool.pdf'));
  const wrappedArgvs = toolArgvs.map((argv) => [...SERVICE_WRAPPER, ...argv]);
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
  return { serviceLike: median(serviceLike), unwrapped: median(unwrapped) };
}

export async function jobOverhead(): Promise<BenchResult> {
  // Some 5,000 keyed requests in a few minutes pass the business plan's 3,000 a minute; every one
  // still goes through the limiter.
  const server = await startServer('serve', {
    QUIRE_LOG_LEVEL: 'warn',
    QUIRE_PLAN_BUSINESS_REQUESTS_PER_WINDOW: '1000000',
  });
  try {
    const client = new BenchClient(server.baseUrl, server.key);
    return await withTempDir('rotate', async (dir) => {
      for (let i = 0; i < WARMUP; i++) {
        for (const mode of MODES) await client.flow('rotate', { angle: 90 }, [INPUT], mode);
        await runRawOk(['qpdf', '--rotate=+90', INPUT, path.join(dir, 'raw.pdf')], dir, QPDF_OK);
      }
      const warm = await warmUp(client, () => ownCpuMs(server.pid));
      const before = await scrapeMetrics(server.baseUrl);
      const rssBefore = readMemory(server.pid)!.rssBytes;
      const sampler = new RssSampler(server.pid, 50).start();
      const cpu = serviceCpuClock(server.pid);
      const seq = await sequential(client, cpu, dir);
      const after = await scrapeMetrics(server.baseUrl);
      const parallel = await throughput(client, cpu.read, dir);
      cpu.check();
      sampler.stop();
      const hwm = readMemory(server.pid)!.hwmBytes;
      const split = await engineSplit(dir);
      return report(
        warm,
        seq,
        parallel,
        split,
        { before, after },
        { rssBefore, peak: Math.max(sampler.peakRssBytes, hwm) },
      );
    });
  } catch (error) {
    process.stderr.write(`server output (tail):\n${server.output().slice(-4000)}\n`);
    throw error;
  } finally {
    await server.stop();
  }
}

type Scrape = Map<string, number>;

/** The long-poll flow's figures, beside the verdicts' `prefer-wait` ones. */
function longPollLine(seq: Sequential, parallel: Throughput, rawP50: number): string {
  const run = seq.modes['long-poll'];
  const flowP50 = median(run.flows.map((f) => f.totalMs));
  const phase = (pick: (f: FlowTiming) => number) => fmt(median(run.flows.map(pick)));
  const rate = parallel.quire['long-poll'];
  return (
    `  long-poll flow (create answers at once, then GET ?wait=30; no verdict): flow p50 ${fmt(flowP50)} ms, ` +
    `overhead ${fmt(flowP50 - rawP50)} ms; service CPU ${fmt(run.cpuMsPerJob, 2)} ms per job ` +
    `(${fmt(rate.cpuMsPerJob, 2)} with ${CLIENTS} clients); bench process CPU ${fmt(run.clientMsPerJob, 2)} ms ` +
    `(${fmt(rate.clientMsPerJob, 2)}); ${CLIENTS} clients ${fmt(rate.rate)} jobs/s = ${fmt((rate.rate / parallel.raw) * 100)} %; ` +
    `phases p50: create ${phase((f) => f.createMs)} ms, wait ${phase((f) => f.waitMs)} ms, ` +
    `link ${phase((f) => f.linkMs)} ms, body ${phase((f) => f.bodyMs)} ms`
  );
}

function report(
  warm: WarmUp,
  seq: Sequential,
  parallel: Throughput,
  split: Split,
  metrics: { before: Scrape; after: Scrape },
  rss: { rssBefore: number; peak: number },
): BenchResult {
  const run = seq.modes['prefer-wait'];
  const rates = parallel.quire['prefer-wait'];
  const total = run.flows.map((f) => f.totalMs);
  const flowP50 = median(total);
  const rawP50 = median(seq.raw);
  const overhead = flowP50 - rawP50;
  const share = rates.rate / parallel.raw;
  const met = {
    overhead: overhead <= TARGET_OVERHEAD_MS,
    cpu: run.cpuMsPerJob <= TARGET_CPU_MS,
    throughput: share >= TARGET_THROUGHPUT,
  };
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const phase = (pick: (f: FlowTiming) => number) => fmt(median(run.flows.map(pick)));
  const { before, after } = metrics;
  const delta = (name: string, match: Record<string, string>) =>
    metricSum(after, name, match) - metricSum(before, name, match);
  const engineRuns = delta('quire_engine_run_seconds_count', { engine: 'qpdf' }) / (RUNS * MODES.length);
  const route = (method: string, url: string) =>
    (delta('quire_http_request_duration_seconds_sum', { method, route: url }) * 1000) /
    delta('quire_http_request_duration_seconds_count', { method, route: url });
  const lines = [
    `job-overhead: rotate of ${path.basename(INPUT)} (1 page), full flow vs \`qpdf --rotate=+90\`, interleaved; ` +
      `verdicts on the Prefer-wait flow (create with \`Prefer: wait=30\` → long-poll only if not ended → download)`,
    `  warm-up first: ${warm.jobs} jobs by ${CLIENTS} clients; server CPU per job ${fmt(warm.first.msPerJob, 2)} ms in the first ${WARM_BATCH} ` +
      `(${fmt(warm.first.rate)} jobs/s), ${fmt(warm.last.msPerJob, 2)} ms in the last ${WARM_BATCH} (${fmt(warm.last.rate)} jobs/s)`,
    `  sequential, ${RUNS} jobs: Prefer-wait flow p50 ${fmt(flowP50)} ms (p90 ${fmt(percentile(total, 90))}), raw qpdf p50 ${fmt(rawP50)} ms; ` +
      `overhead ${fmt(overhead)} ms (target ≤ ${TARGET_OVERHEAD_MS} ms: ${verdict(met.overhead)})`,
    `  service CPU per job (server process + its engine spawner and qpdf forkserver, engines excluded; Prefer-wait flow) ${fmt(run.cpuMsPerJob, 2)} ms (target ≤ ${TARGET_CPU_MS} ms: ${verdict(met.cpu)}; ` +
      `spawner and forkserver ${fmt(run.spawnerMsPerJob, 2)} ms of it); ` +
      `${fmt(rates.cpuMsPerJob, 2)} ms with ${CLIENTS} clients`,
    `  ${CLIENTS} concurrent clients (Prefer-wait flow): ${fmt(rates.rate)} jobs/s vs raw qpdf ×${CLIENTS} ${fmt(parallel.raw)} runs/s = ` +
      `${fmt(share * 100)} % (target ≥ ${TARGET_THROUGHPUT * 100} %: ${verdict(met.throughput)})`,
    `  client phases p50 (Prefer-wait): create+run ${phase((f) => f.createMs)} ms, long-poll after it ${phase((f) => f.waitMs)} ms ` +
      `(${run.flows.filter((f) => f.polls > 0).length} of ${RUNS} needed it), ` +
      `link ${phase((f) => f.linkMs)} ms, body ${phase((f) => f.bodyMs)} ms; bench process CPU (the client, and the RSS sampler) ${fmt(run.clientMsPerJob, 2)} ms per job ` +
      `(${fmt(rates.clientMsPerJob, 2)} with ${CLIENTS} clients)`,
    longPollLine(seq, parallel, rawP50),
    `  server (from /metrics, both flows): ${fmt(engineRuns, 2)} qpdf runs per job; route means POST /jobs ${fmt(route('POST', '/api/v1/jobs'))} ms, ` +
      `GET /jobs/:id?wait ${fmt(route('GET', '/api/v1/jobs/:id'))} ms, GET …/download ` +
      `${fmt(route('GET', '/api/v1/jobs/:id/download'))} ms, GET /files/:token ${fmt(route('GET', '/api/v1/files/:token'))} ms`,
    `  the tool's qpdf run started directly: p50 ${fmt(split.serviceLike)} ms under ${SERVICE_WRAPPER_NAME} (how the service starts engines; qpdf runs fork from the qpdf forkserver when it is built), ` +
      `${fmt(split.unwrapped)} ms without (wrapper ${fmt(split.serviceLike - split.unwrapped)} ms)`,
    `  server RSS before ${fmt(rss.rssBefore / MiB)} MiB, peak ${fmt(rss.peak / MiB)} MiB`,
  ];
  return {
    name: 'job-overhead',
    lines,
    summary: [
      ['flow p50 / raw qpdf p50 (Prefer-wait)', `${fmt(flowP50)} / ${fmt(rawP50)} ms`],
      ['overhead p50', `${fmt(overhead)} ms (target ≤ ${TARGET_OVERHEAD_MS})`],
      ['service CPU per job', `${fmt(run.cpuMsPerJob, 2)} ms (target ≤ ${TARGET_CPU_MS})`],
      [
        `${CLIENTS} clients vs raw ×${CLIENTS}`,
        `${fmt(rates.rate)} / ${fmt(parallel.raw)} per s = ${fmt(share * 100)} % (target ≥ 50)`,
      ],
      ['server peak RSS', `${fmt(rss.peak / MiB)} MiB`],
    ],
    ok: met.overhead && met.cpu && met.throughput,
  };
}
