// `npm run bench [-- name …]`: runs the benchmarks (all by default) one after another against the
// built service and prints a summary table. Exit code 1 if a benchmark failed or missed its target.
// bench/launch.mjs builds and starts it, and answers --help from bench/list.json without building.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { compress } from './compress.js';
import { docx } from './docx.js';
import { engineRatio } from './engine-ratio.js';
import { heavyMemory } from './heavy-memory.js';
import { html } from './html.js';
import { jobOverhead } from './job-overhead.js';
import { jobReads } from './job-reads.js';
import { markdownPages } from './markdown-pages.js';
import { mergeBench } from './merge.js';
import { peer } from './peer.js';
import { queueScaling } from './queue-scaling.js';
import { rateLimit } from './rate-limit.js';
import { render } from './render.js';
import { structure } from './structure.js';
import { structureMemory } from './structure-memory.js';
import { table } from './support/stats.js';
import type { BenchResult } from './types.js';
import { uploadMemory } from './upload-memory.js';
import { uploads } from './uploads.js';

const BENCHMARKS: Record<string, () => Promise<BenchResult>> = {
  'upload-memory': uploadMemory,
  'job-overhead': jobOverhead,
  'engine-ratio': engineRatio,
  'heavy-memory': heavyMemory,
  'queue-scaling': queueScaling,
  'rate-limit': rateLimit,
  merge: mergeBench,
  'job-reads': jobReads,
  'structure-memory': structureMemory,
  structure,
  'markdown-pages': markdownPages,
  compress,
  html,
  docx,
  render,
  uploads,
  peer,
};

/** No benchmark should come close; past this the run is stuck and is abandoned. */
const BENCH_TIMEOUT_MS = 10 * 60_000;
/** Benchmarks that convert a whole document set, OCR included, and may take longer. */
const LONG_TIMEOUT_MS: Record<string, number> = { structure: 60 * 60_000 };

function withTimeout<T>(promise: Promise<T>, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = LONG_TIMEOUT_MS[name] ?? BENCH_TIMEOUT_MS;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} took longer than ${limit} ms`)), limit);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function version(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8' }).split('\n')[0]!.trim();
  } catch {
    return 'missing';
  }
}

function machine(): string {
  const ram = (os.totalmem() / 1024 ** 3).toFixed(1);
  return (
    `machine: ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${ram} GiB RAM, ` +
    `Node ${process.version}, ${version('qpdf', ['--version'])}, gs ${version('gs', ['--version'])}`
  );
}

/** bench/list.json (from dist/bench/ or bench/ alike: the repository's bench/ folder). */
function listedNames(): string[] {
  const file = new URL('../../bench/list.json', import.meta.url);
  return Object.keys(JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>);
}

async function main(argv: string[]): Promise<number> {
  const listed = listedNames();
  if (listed.sort().join() !== Object.keys(BENCHMARKS).sort().join()) {
    process.stderr.write(`bench/list.json (${listed.join(', ')}) is not the BENCHMARKS table\n`);
    return 2;
  }
  const unknown = argv.filter((name) => !(name in BENCHMARKS));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown benchmark(s) ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}\n`,
    );
    return 2;
  }
  const names = argv.length > 0 ? argv : Object.keys(BENCHMARKS);
  process.stdout.write(`${machine()}\n`);
  const rows: string[][] = [['benchmark', 'metric', 'value']];
  let failed = false;
  for (const name of names) {
    const load = os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' ');
    process.stdout.write(`\n== ${name} (load average ${load} at start)\n`);
    try {
      const result = await withTimeout(BENCHMARKS[name]!(), name);
      process.stdout.write(`${result.lines.join('\n')}\n`);
      for (const [metric, value] of result.summary) rows.push([name, metric, value]);
      if (result.ok !== undefined) rows.push([name, 'target', result.ok ? 'met' : 'NOT MET']);
      failed ||= result.ok === false;
    } catch (error) {
      process.stderr.write(`${name} failed: ${(error as Error).stack ?? String(error)}\n`);
      rows.push([name, 'error', (error as Error).message.split('\n')[0] ?? 'failed']);
      failed = true;
    }
  }
  process.stdout.write(`\n${table(rows)}\n`);
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
// A timed-out benchmark may leave sockets or timers behind; the exit hook kills its server group.
process.exit();
