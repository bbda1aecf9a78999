// Reads: `GET /api/v1/jobs/{id}` of a finished job under autocannon (10 keep-alive connections)
// against `quire serve` on the embedded default, interleaved with `/healthz` on the same server, the
// cheapest route there is and what a synchronous peer's status endpoint costs. Also the revalidation
// a polling client makes with `If-None-Match` (304). Target (issues 16, 32): ≥ 5,000 req/s with p99 <
// 10 ms at the default log level (info, an access line per request); the same read on a second
// server at `warn` shows what the access lines cost.
import os from 'node:os';
import autocannon from 'autocannon';
import { BenchClient } from './support/client.js';
import { corpusFile } from './support/paths.js';
import { treeCpuMs } from './support/process-tree.js';
import { type BenchServer, startServer } from './support/server.js';
import { fmt } from './support/stats.js';
import type { BenchResult } from './types.js';

const CONNECTIONS = 10;
/** Each target runs ROUNDS times for SECONDS, interleaved, so a load spike hits every target alike. */
const ROUNDS = 2;
const SECONDS = Number(process.env.QUIRE_BENCH_READS_SECONDS ?? 5);
const TARGET_RPS = 5_000;
const TARGET_P99_MS = 10;
/**
 * Far above what the bench sends, for the plan of the first key's account, so no request is refused
 * (the limiter still counts every one).
 */
const GENEROUS_PLAN = { QUIRE_PLAN_BUSINESS_REQUESTS_PER_WINDOW: '1000000' };

interface Target {
  server: BenchServer;
  label: string;
  path: string;
  headers: Record<string, string>;
  expect: number;
}

interface Measured {
  requests: number;
  /** Server CPU over the target's runs: per request, the figure least bent by other load. */
  cpuMs: number;
  seconds: number;
  p50: number[];
  p99: number[];
  wrong: number;
}

async function hammer(baseUrl: string, target: Target): Promise<autocannon.Result & { wrong: number }> {
  let wrong = 0;
  const result = await autocannon({
    url: `${baseUrl}${target.path}`,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: SECONDS,
    headers: target.headers,
    // Counts answers other than the expected status (a 429 or 500 would flatter the rate).
    setupClient: (client) => {
      client.on('response', (status: number) => {
        if (status !== target.expect) wrong++;
      });
    },
  });
  return Object.assign(result, { wrong });
}

/** A finished job on `server` and the targets reading it; `suffix` names the server in labels. */
async function targetsOn(server: BenchServer, suffix: string, all: boolean): Promise<Target[]> {
  const client = new BenchClient(server.baseUrl, server.key);
  const created = await client.createJob('rotate', { angle: 90 }, [
    corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf'),
  ]);
  const job = await client.waitTerminal(created.id);
  const auth = { authorization: `Bearer ${server.key}` };
  const first = await fetch(`${server.baseUrl}/api/v1/jobs/${job.id}`, { headers: auth });
  const etag = first.headers.get('etag');
  await first.arrayBuffer();
  const read = { server, path: `/api/v1/jobs/${job.id}`, headers: auth, expect: 200 };
  if (!all) return [{ ...read, label: `GET /api/v1/jobs/{id}${suffix}` }];
  const targets: Target[] = [
    { server, label: '/healthz (reference)', path: '/healthz', headers: {}, expect: 200 },
    { ...read, label: 'GET /api/v1/jobs/{id}' },
  ];
  if (etag)
    targets.push({
      ...read,
      label: 'GET job, If-None-Match (304)',
      headers: { ...auth, 'if-none-match': etag },
      expect: 304,
    });
  return targets;
}

export async function jobReads(): Promise<BenchResult> {
  // The default configuration (info), and a second server at warn for what the access lines cost.
  const server = await startServer('serve', { ...GENEROUS_PLAN, QUIRE_LOG_LEVEL: 'info' });
  const quiet = await startServer('serve', { ...GENEROUS_PLAN, QUIRE_LOG_LEVEL: 'warn' });
  try {
    const targets = [...(await targetsOn(server, '', true)), ...(await targetsOn(quiet, ' at warn', false))];
    const measured = new Map<string, Measured>(
      targets.map((t) => [t.label, { requests: 0, cpuMs: 0, seconds: 0, p50: [], p99: [], wrong: 0 }]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) {
        const cpuBefore = treeCpuMs(target.server.pid);
        const result = await hammer(target.server.baseUrl, target);
        const m = measured.get(target.label)!;
        m.cpuMs += treeCpuMs(target.server.pid) - cpuBefore;
        m.requests += result.requests.total;
        m.seconds += result.duration;
        m.p50.push(result.latency.p50);
        m.p99.push(result.latency.p99);
        m.wrong += result.wrong + result.errors;
      }
    }
    return report(measured, os.loadavg()[0]!);
  } finally {
    await server.stop();
    await quiet.stop();
  }
}

function report(measured: Map<string, Measured>, load: number): BenchResult {
  const rate = (m: Measured) => m.requests / m.seconds;
  const [reference, job] = [...measured.values()];
  const lines = [
    `${CONNECTIONS} connections, keep-alive, ${ROUNDS} × ${SECONDS} s per target, interleaved; server at the default log level (info) unless named; load ${fmt(load, 2)}`,
  ];
  const summary: [string, string][] = [];
  for (const [label, m] of measured) {
    const cpu = (m.cpuMs * 1000) / m.requests;
    const line = `${label}: ${fmt(rate(m), 0)} req/s, server CPU ${fmt(cpu, 0)} µs/request, p50 ${fmt(Math.max(...m.p50))} ms, p99 ${fmt(Math.max(...m.p99))} ms, ${fmt(rate(m) / rate(reference!), 2)}× /healthz${m.wrong ? `, ${m.wrong} unexpected answers` : ''}`;
    lines.push(line);
    summary.push([
      `${label} req/s (p99 ms; CPU µs/req)`,
      `${fmt(rate(m), 0)} (${fmt(Math.max(...m.p99))}; ${fmt(cpu, 0)})`,
    ]);
  }
  const ok =
    rate(job!) >= TARGET_RPS &&
    Math.max(...job!.p99) < TARGET_P99_MS &&
    [...measured.values()].every((m) => m.wrong === 0);
  lines.push(`target ≥ ${TARGET_RPS} req/s with p99 < ${TARGET_P99_MS} ms: ${ok ? 'met' : 'missed'}`);
  summary.push(['GET job / healthz', `${fmt(rate(job!) / rate(reference!), 2)}×`]);
  return { name: 'job-reads', lines, summary, ok };
}
