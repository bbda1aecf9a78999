// html-to-pdf against a peer: one simple page through Quire's whole flow (create → wait →
// download) and printed by a bare playwright-core script with the same Chromium (what Gotenberg
// does), interleaved. CPU per job counts each side's whole process tree from /proc: the Quire server
// with its browser, and the script with its browser. Targets (issue 16): Quire's p50 latency and
// CPU per job at or below the script's; 4 concurrent clients ≥ 1.2× the script's sequential rate.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface, type Interface } from 'node:readline';
import { BenchClient, type FlowTiming, metricSum, scrapeMetrics } from './support/client.js';
import { repoRoot } from './support/paths.js';
import { ownCpuMs, treeCpuMs } from './support/process-tree.js';
import { startServer } from './support/server.js';
import { fmt, jobsPerSecond, median } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const RUNS = 12;
const WARM_UP = 3;
const CLIENTS = 4;
const JOBS_PER_CLIENT = 6;
const CONCURRENT_TARGET = 1.2;
/** Settings a run may vary from the shell (`QUIRE_BROWSER_POOL_SIZE=1 npm run bench -- html`). */
const PASSED_SETTINGS = ['QUIRE_BROWSER_POOL_SIZE', 'QUIRE_WORKER_CONCURRENCY'];

/** The page both benchmarks print (html, peer). */
export const HTML = `<!doctype html><html><head><meta charset="utf-8"><style>
body{font-family:sans-serif;margin:0}h1{color:#234}td{border:1px solid #999;padding:4px}</style></head>
<body><h1>Invoice 2026-0042</h1><p>${'A simple page with a heading, a table and some text. '.repeat(12)}</p>
<table>${'<tr><td>Item</td><td>1</td><td>12.00</td></tr>'.repeat(10)}</table></body></html>`;

/** The bare script as a child process, one print per request, answered in order. */
class BareBrowser {
  private constructor(
    private readonly child: ChildProcess,
    private readonly lines: Interface,
  ) {}

  static async start(): Promise<BareBrowser> {
    const script = path.join(repoRoot, 'dist/bench/support/bare-browser.js');
    const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] });
    const bare = new BareBrowser(child, createInterface({ input: child.stdout! }));
    return bare;
  }

  get pid(): number {
    return this.child.pid!;
  }

  async print(html: string, out: string): Promise<number> {
    const started = performance.now();
    const answer = new Promise<string>((resolve) => this.lines.once('line', resolve));
    this.child.stdin!.write(`${JSON.stringify({ html, out })}\n`);
    const line = await answer;
    if (line !== 'ok') throw new Error(`bare script: ${line}`);
    return performance.now() - started;
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

interface Measured {
  ms: number;
  /** The whole process tree's CPU (the target's measure). */
  cpuMs: number;
  /** The CPU of the tree's root alone (the Node process driving the browser), to split the total. */
  nodeMs: number;
}

/** Runs `job` and returns its wall time and the CPU the process tree of `pid` used meanwhile. */
async function measured(pid: number, job: () => Promise<number>): Promise<Measured> {
  const before = treeCpuMs(pid);
  const nodeBefore = ownCpuMs(pid);
  const ms = await job();
  return { ms, cpuMs: treeCpuMs(pid) - before, nodeMs: ownCpuMs(pid) - nodeBefore };
}

export async function html(): Promise<BenchResult> {
  return withTempDir('html', async (dir) => {
    const page = path.join(dir, 'page.html');
    await writeFile(page, HTML);
    const out = path.join(dir, 'bare.pdf');
    const passed = PASSED_SETTINGS.filter((name) => process.env[name] !== undefined);
    const server = await startServer('serve', Object.fromEntries(passed.map((n) => [n, process.env[n]!])));
    const bare = await BareBrowser.start();
    try {
      const client = new BenchClient(server.baseUrl, server.key);
      const flows: FlowTiming[] = [];
      const quireJob = async () => {
        const flow = await client.flow('html-to-pdf', {}, [page]);
        flows.push(flow);
        return flow.totalMs;
      };
      for (let i = 0; i < WARM_UP; i++) {
        await quireJob();
        await bare.print(page, out);
      }
      flows.length = 0;
      const before = await scrapeMetrics(server.baseUrl);
      const quire: Measured[] = [];
      const script: Measured[] = [];
      for (let i = 0; i < RUNS; i++) {
        quire.push(await measured(server.pid, quireJob));
        script.push(await measured(bare.pid, () => bare.print(page, out)));
      }
      const load = os.loadavg()[0]!;
      const after = await scrapeMetrics(server.baseUrl);
      const mean = (name: string, match: Record<string, string>) =>
        ((metricSum(after, `${name}_sum`, match) - metricSum(before, `${name}_sum`, match)) * 1000) /
        (metricSum(after, `${name}_count`, match) - metricSum(before, `${name}_count`, match));
      const phase = (pick: (f: FlowTiming) => number) => fmt(median(flows.map(pick)));
      const rate = await jobsPerSecond(CLIENTS, JOBS_PER_CLIENT, () =>
        client.flow('html-to-pdf', {}, [page]),
      );
      const q = { ms: median(quire.map((r) => r.ms)), cpu: median(quire.map((r) => r.cpuMs)) };
      const s = { ms: median(script.map((r) => r.ms)), cpu: median(script.map((r) => r.cpuMs)) };
      // Means, not medians: the 10 ms ticks make a median of the small Node share mostly 20 or 30.
      const nodeMean = (rs: Measured[]) => fmt(rs.reduce((sum, r) => sum + r.nodeMs, 0) / rs.length);
      const scriptRate = 1000 / s.ms;
      const ok = q.ms <= s.ms && q.cpu <= s.cpu && rate >= CONCURRENT_TARGET * scriptRate;
      const runs = (rs: { ms: number }[]) => rs.map((r) => fmt(r.ms, 0)).join(', ');
      return {
        name: 'html',
        lines: [
          `html: one simple page, ${RUNS} interleaved runs each (load average ${fmt(load, 2)})` +
            passed.map((n) => `, ${n}=${process.env[n]}`).join(''),
          `  Quire full flow p50 ${fmt(q.ms)} ms, CPU ${fmt(q.cpu)} ms/job (server + browser; server's Node alone mean ${nodeMean(quire)} ms); runs [${runs(quire)}]`,
          `    phases p50 (Prefer-wait flow): create+run ${phase((f) => f.createMs)} ms, long-poll ${phase((f) => f.waitMs)} ms, link ${phase((f) => f.linkMs)} ms, body ${phase((f) => f.bodyMs)} ms; ` +
            `server means: job run ${fmt(mean('quire_job_run_seconds', { tool: 'html-to-pdf' }))} ms, chromium ${fmt(mean('quire_engine_run_seconds', { engine: 'chromium' }))} ms`,
          `  bare playwright-core p50 ${fmt(s.ms)} ms, CPU ${fmt(s.cpu)} ms/job (script + browser; script's Node alone mean ${nodeMean(script)} ms); runs [${runs(script)}]`,
          `  ${CLIENTS} concurrent clients: ${fmt(rate, 2)} jobs/s vs the script's sequential ${fmt(scriptRate, 2)} jobs/s → ${fmt(rate / scriptRate, 2)}x (target ≥ ${CONCURRENT_TARGET}x)`,
        ],
        summary: [
          ['latency p50 Quire / script', `${fmt(q.ms)} / ${fmt(s.ms)} ms = ${fmt(q.ms / s.ms, 2)}x`],
          ['CPU per job Quire / script', `${fmt(q.cpu)} / ${fmt(s.cpu)} ms = ${fmt(q.cpu / s.cpu, 2)}x`],
          [
            `${CLIENTS} clients / script sequential`,
            `${fmt(rate, 2)} / ${fmt(scriptRate, 2)} jobs/s = ${fmt(rate / scriptRate, 2)}x`,
          ],
        ],
        ok,
      };
    } catch (error) {
      process.stderr.write(`server output (tail):\n${server.output().slice(-4000)}\n`);
      throw error;
    } finally {
      await bare.stop();
      await server.stop();
    }
  });
}
