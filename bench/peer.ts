// Quire against Gotenberg on the rows of issue 32, when GOTENBERG_URL names a running Gotenberg
// (../shared/peers/gotenberg.md builds and starts 8.36 here): small and 10-file merges, html-to-pdf
// with 4 clients, the cheapest read under autocannon, and a 300 MB merge. One client for both
// (node:http, keep-alive, the same streamed multipart body); rounds interleaved so a load spike
// hits both sides; CPU read from each side's whole process tree (/proc), its browser and office
// included. Quire runs its default configuration (`quire serve`, log level info).
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { HTML } from './html.js';
import { bigMergeInput } from './support/big-pdf.js';
import { BenchClient } from './support/client.js';
import { corpusFile, MERGE_INPUTS } from './support/paths.js';
import { PeerClient } from './support/peer-client.js';
import { treeCpuMs } from './support/process-tree.js';
import { type BenchServer, startServer } from './support/server.js';
import { fmt, jobsPerSecond, median } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const SMALL = ['pypdf-samples__pdflatex-4-pages.pdf', 'pypdf-samples__pdflatex-outline.pdf'].map(corpusFile);
const RUNS = 9;
/**
 * Rounds of a small merge: its ratio rests on medians of ~10 ms that the VM's scheduling moves by a
 * millisecond from one minute to the next, so it takes more rounds (and warm-up) than the big rows.
 */
const SMALL_RUNS = 101;
const SMALL_WARM_UP = 10;
/**
 * The small rows with targets compare both services warm: SERVICE_WARM_UP small merges on each side
 * first, interleaved. Quire's first few hundred jobs after a start cost more (V8 still compiling the
 * request path; and a disk like this one's makes every new inode dear for minutes after the last
 * benchmark removed its files). The first COLD_RUNS after the start are their own row, without a
 * target, so that cost stays visible.
 */
const SERVICE_WARM_UP = 400;
const COLD_RUNS = 41;
const HTML_CLIENTS = 4;
const HTML_PER_CLIENT = 6;
const READ_SECONDS = 5;

interface Side {
  ms: number[];
  cpuMs: number;
  ops: number;
}

interface Row {
  label: string;
  quire: string;
  peer: string;
  ratio: number;
  /** What the ratio compares: wall time (a rate row as time per job) or CPU. */
  measure: 'time' | 'cpu';
  /** Largest Quire / Gotenberg ratio allowed (a rate row is inverted to a time ratio), if any. */
  target?: number;
}

const side = (): Side => ({ ms: [], cpuMs: 0, ops: 0 });

/** Gotenberg's pid for its CPU: GOTENBERG_PID, else the oldest process named gotenberg. */
function peerPid(): number {
  if (process.env.GOTENBERG_PID) return Number(process.env.GOTENBERG_PID);
  return Number(execFileSync('pgrep', ['-o', '-x', 'gotenberg'], { encoding: 'utf8' }).trim());
}

async function timed(pid: number, into: Side, op: () => Promise<number>): Promise<void> {
  const before = treeCpuMs(pid);
  into.ms.push(await op());
  into.cpuMs += treeCpuMs(pid) - before;
  into.ops++;
}

/** Interleaved rounds of one Quire flow and one Gotenberg request doing the same work. */
async function pair(
  label: string,
  runs: number,
  quire: () => Promise<number>,
  peer: () => Promise<number>,
  pids: { quire: number; peer: number },
  target?: number,
  measure: 'time' | 'cpu' = 'time',
  warmUp = 1,
): Promise<Row> {
  const [q, g] = [side(), side()];
  for (let i = 0; i < warmUp; i++) {
    await quire();
    await peer();
  }
  for (let i = 0; i < runs; i++) {
    await timed(pids.quire, q, quire);
    await timed(pids.peer, g, peer);
  }
  const show = (s: Side) => `${fmt(median(s.ms))} ms, CPU ${fmt(s.cpuMs / s.ops)} ms`;
  const ratio = measure === 'time' ? median(q.ms) / median(g.ms) : q.cpuMs / q.ops / (g.cpuMs / g.ops);
  return { label, quire: show(q), peer: show(g), ratio, measure, ...(target ? { target } : {}) };
}

/** `rounds` of both flows, interleaved and untimed. */
async function warmUp(
  rounds: number,
  quire: () => Promise<number>,
  peer: () => Promise<number>,
): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await quire();
    await peer();
  }
}

async function reads(server: BenchServer, gotenberg: string, jobId: string): Promise<Row> {
  const hammer = (url: string, headers: Record<string, string>) =>
    autocannon({ url, connections: 10, duration: READ_SECONDS, headers });
  const rates: { q: number[]; g: number[]; qp99: number[] } = { q: [], g: [], qp99: [] };
  for (let round = 0; round < 2; round++) {
    const q = await hammer(`${server.baseUrl}/api/v1/jobs/${jobId}`, {
      authorization: `Bearer ${server.key}`,
    });
    const g = await hammer(`${gotenberg}/health`, {});
    if (q.non2xx || g.non2xx) throw new Error(`reads: ${q.non2xx} / ${g.non2xx} answers other than 2xx`);
    rates.q.push(q.requests.average);
    rates.qp99.push(q.latency.p99);
    rates.g.push(g.requests.average);
  }
  const [q, g] = [median(rates.q), median(rates.g)];
  return {
    label: 'GET /api/v1/jobs/{id} (info) vs /health, 10 connections',
    quire: `${fmt(q, 0)} req/s, p99 ${fmt(Math.max(...rates.qp99))} ms`,
    peer: `${fmt(g, 0)} req/s`,
    ratio: g / q,
    measure: 'time',
  };
}

async function htmlRate(
  client: BenchClient,
  peer: PeerClient,
  page: string,
  pids: { quire: number; peer: number },
): Promise<Row> {
  const [q, g] = [side(), side()];
  const rate = { q: [] as number[], g: [] as number[] };
  // One request per page, as Gotenberg's (POST /run).
  const convert = () => client.runJob('html-to-pdf', {}, [page]);
  await convert();
  await peer.convert('/forms/chromium/convert/html', [page]);
  for (let round = 0; round < 2; round++) {
    let before = treeCpuMs(pids.quire);
    rate.q.push(await jobsPerSecond(HTML_CLIENTS, HTML_PER_CLIENT, convert));
    q.cpuMs += treeCpuMs(pids.quire) - before;
    q.ops += HTML_CLIENTS * HTML_PER_CLIENT;
    before = treeCpuMs(pids.peer);
    rate.g.push(
      await jobsPerSecond(HTML_CLIENTS, HTML_PER_CLIENT, () =>
        peer.convert('/forms/chromium/convert/html', [page]),
      ),
    );
    g.cpuMs += treeCpuMs(pids.peer) - before;
    g.ops += HTML_CLIENTS * HTML_PER_CLIENT;
  }
  const [qr, gr] = [median(rate.q), median(rate.g)];
  return {
    label: `html-to-pdf, ${HTML_CLIENTS} clients`,
    quire: `${fmt(qr, 2)} jobs/s, CPU ${fmt(q.cpuMs / q.ops)} ms/page`,
    peer: `${fmt(gr, 2)} jobs/s, CPU ${fmt(g.cpuMs / g.ops)} ms/page`,
    ratio: gr / qr,
    measure: 'time',
    target: 1 / 1.2,
  };
}

export async function peer(): Promise<BenchResult> {
  const gotenberg = process.env.GOTENBERG_URL;
  if (!gotenberg)
    return {
      name: 'peer',
      lines: ['GOTENBERG_URL is not set: skipped (../shared/peers/gotenberg.md builds and starts Gotenberg)'],
      summary: [],
      ok: undefined,
    };
  return withTempDir('peer', async (dir) => {
    const page = path.join(dir, 'index.html');
    await writeFile(page, HTML);
    // A plan far above what the reads send, so none is refused (the limiter still counts each one).
    const server = await startServer('serve', {
      QUIRE_LOG_LEVEL: 'info',
      QUIRE_PLAN_BUSINESS_REQUESTS_PER_WINDOW: '1000000',
    });
    try {
      const client = new BenchClient(server.baseUrl, server.key);
      const peerClient = new PeerClient(gotenberg);
      const pids = { quire: server.pid, peer: peerPid() };
      // Quire's one request, as Gotenberg's: POST /run answers with the merged PDF (docs/api.md §2).
      const merge = (files: string[], options: Record<string, unknown>) => async () =>
        (await client.runJob('merge', options, files)).totalMs;
      // The three-request flow it replaces (create with Prefer: wait, the link, the file), for comparison.
      const mergeJobFlow = (files: string[], options: Record<string, unknown>) => async () =>
        (await client.flow('merge', options, files)).totalMs;
      const peerMerge = (files: string[]) => async () =>
        (await peerClient.convert('/forms/pdfengines/merge', files)).ms;
      /** A small merge against the peer's: more rounds and warm-up (SMALL_RUNS says why). */
      const smallPair = (label: string, quire: () => Promise<number>, target?: number) =>
        pair(label, SMALL_RUNS, quire, peerMerge(SMALL), pids, target, 'time', SMALL_WARM_UP);
      /** A 10-file merge against the peer's. */
      const corpusPair = (label: string, options: Record<string, unknown>, target?: number) =>
        pair(label, RUNS, merge(MERGE_INPUTS, options), peerMerge(MERGE_INPUTS), pids, target);
      const mergeRows = async (): Promise<Row[]> => {
        const rows = [
          await pair(
            `merge 2 small PDFs, the first ${COLD_RUNS} after the start (POST /run)`,
            COLD_RUNS,
            merge(SMALL, {}),
            peerMerge(SMALL),
            pids,
          ),
          // The 10-file rows before the warm-up, as before it existed (docs/benchmarks.md says what
          // the warm-up's thousand jobs change for them).
          await corpusPair('merge 10 corpus PDFs, bookmarks: none (POST /run)', { bookmarks: 'none' }, 1.0),
          await corpusPair('merge 10 corpus PDFs, bookmarks: keep (POST /run)', {}, 1.1),
        ];
        await warmUp(SERVICE_WARM_UP, merge(SMALL, {}), peerMerge(SMALL));
        rows.push(
          await smallPair('merge 2 small PDFs (POST /run)', merge(SMALL, {}), 1.0),
          // The peer's output: Gotenberg's qpdf merge keeps no bookmarks.
          await smallPair(
            'merge 2 small PDFs, bookmarks: none (POST /run)',
            merge(SMALL, { bookmarks: 'none' }),
            1.0,
          ),
          await smallPair(
            'merge 2 small PDFs (POST /jobs + Prefer: wait + download)',
            mergeJobFlow(SMALL, {}),
          ),
          // The same 10-file merge after the warm-up's jobs, without a target: V8's old generation
          // has grown by then, and its major GCs were what this row once showed (src/cli/v8-heap.ts).
          await corpusPair('merge 10 corpus PDFs, bookmarks: none, after the small rows (POST /run)', {
            bookmarks: 'none',
          }),
        );
        return rows;
      };
      const rows: Row[] = [];
      // PEER_ROWS=merge,html,reads,big runs only those rows (all by default).
      const only = new Set(process.env.PEER_ROWS?.split(',') ?? ['merge', 'html', 'reads', 'big']);
      if (only.has('merge')) rows.push(...(await mergeRows()));
      if (only.has('html')) rows.push(await htmlRate(client, peerClient, page, pids));
      if (only.has('reads')) {
        const job = await client.flow('rotate', { angle: 90 }, [SMALL[0]!]);
        rows.push(await reads(server, gotenberg, job.job.id));
      }
      if (only.has('big')) {
        const big = bigMergeInput();
        rows.push(
          await pair(
            `merge ${fmt(big.mib, 0)} MiB + a small PDF`,
            3,
            // The job flow: a 300 MB merge may outlast the one request's wait.
            mergeJobFlow([big.file, SMALL[0]!], { bookmarks: 'none' }),
            peerMerge([big.file, SMALL[0]!]),
            pids,
            1.0,
            'cpu',
          ),
        );
      }
      return report(rows);
    } finally {
      await server.stop();
    }
  });
}

function report(rows: Row[]): BenchResult {
  const load = os
    .loadavg()
    .map((l) => fmt(l, 2))
    .join(' ');
  const lines = [`against ${process.env.GOTENBERG_URL}, interleaved; load average at the end ${load}`];
  let ok = true;
  for (const row of rows) {
    const verdict =
      row.target === undefined ? '' : row.ratio <= row.target ? ' (target met)' : ' (target missed)';
    if (row.target !== undefined && row.ratio > row.target) ok = false;
    lines.push(
      `${row.label}: Quire ${row.quire}; Gotenberg ${row.peer}; Quire/Gotenberg ${row.measure} ${fmt(row.ratio, 2)}×${verdict}`,
    );
  }
  return {
    name: 'peer',
    lines,
    summary: rows.map((r) => [`${r.label}: Quire/Gotenberg ${r.measure}`, `${fmt(r.ratio, 2)}×`]),
    ok,
  };
}
