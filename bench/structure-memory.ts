// Memory and responsiveness of the embedded server (API + workers in one process) while document
// structure work runs on a hostile file: flatten, info, merge and metadata at once on a PDF of
// 1.5 M tiny objects (issue 14, attack 2). Targets: the server's peak RSS (its own process, not
// the engines it starts) under 300 MB, and /healthz max under 100 ms throughout. The ratio compares
// the service's wall time with the raw engine commands doing the same work, also concurrently.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { healthy, MANY_OBJECTS, manyObjectsPdf } from '../test/support/hostile-pdf.js';
import { BenchClient } from './support/client.js';
import { RssSampler } from './support/memory.js';
import { runRaw } from './support/raw.js';
import { startServer } from './support/server.js';
import { fmt, MiB, percentile } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const RSS_TARGET_BYTES = 300 * MiB;
const HEALTHZ_TARGET_MS = 100;
const HEALTHZ_INTERVAL_MS = 50;
/** Long enough for qpdf on 1.5 M objects on a loaded 2-core machine; a stuck run still ends. */
const JOB_DEADLINE_MS = 8 * 60_000;

/** Probes /healthz back to back (one in flight at a time) until stopped; keeps every latency. */
function healthzProbe(baseUrl: string) {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(new URL('/healthz', baseUrl));
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, HEALTHZ_INTERVAL_MS));
    }
  })();
  return {
    latencies,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** The same work as the four jobs, as the raw programs run it, all at once; wall time in ms. */
async function rawWork(file: string, companion: string, dir: string): Promise<number> {
  const update = path.join(dir, 'info-update.json');
  await writeFile(
    update,
    JSON.stringify({
      qpdf: [
        {
          jsonversion: 2,
          pushedinheritedpageresources: false,
          calledgetallpages: false,
          maxobjectid: MANY_OBJECTS + 5,
        },
        { [`obj:${MANY_OBJECTS + 6} 0 R`]: { value: { '/Title': 'u:bench' } } },
      ],
    }),
  );
  const started = performance.now();
  await Promise.all([
    runRaw(
      ['qpdf', file, '--generate-appearances', '--flatten-annotations=all', 'flat.pdf'],
      dir,
      JOB_DEADLINE_MS,
    ),
    runRaw(
      ['qpdf', '--json=2', '--json-key=outlines', '--json-key=acroform', file],
      dir,
      JOB_DEADLINE_MS,
    ).then(() => runRaw(['pdfinfo', file], dir, JOB_DEADLINE_MS)),
    runRaw(['qpdf', '--empty', '--pages', file, companion, '--', 'merged.pdf'], dir, JOB_DEADLINE_MS),
    runRaw(['qpdf', file, `--update-from-json=${update}`, 'meta.pdf'], dir, JOB_DEADLINE_MS),
  ]);
  return performance.now() - started;
}

export async function structureMemory(): Promise<BenchResult> {
  const file = await manyObjectsPdf();
  return withTempDir('structure', async (dir) => {
    const companion = path.join(dir, 'companion.pdf');
    await writeFile(companion, healthy());
    const server = await startServer('serve', { QUIRE_WORKER_CONCURRENCY: '4' });
    const lines: string[] = [];
    let serviceMs = 0;
    let peakRss = 0;
    let latencies: number[] = [];
    const outcomes: string[] = [];
    try {
      const client = new BenchClient(server.baseUrl, server.key);
      const sampler = new RssSampler(server.pid).start();
      const probe = healthzProbe(server.baseUrl);
      const started = performance.now();
      const jobs = await Promise.all([
        client.createJob('flatten', {}, [file]),
        client.createJob('info', {}, [file]),
        client.createJob('merge', {}, [file, companion]),
        client.createJob('metadata', { title: 'bench' }, [file]),
      ]);
      for (const job of await Promise.all(jobs.map((j) => client.waitTerminal(j.id, JOB_DEADLINE_MS)))) {
        outcomes.push(`${job.status}${job.error ? ` (${job.error.code})` : ''}`);
      }
      serviceMs = performance.now() - started;
      await probe.stop();
      sampler.stop();
      peakRss = sampler.peakRssBytes;
      latencies = probe.latencies;
    } finally {
      await server.stop();
    }
    const rawMs = await rawWork(file, companion, dir);
    const p99 = percentile(latencies, 99);
    const max = Math.max(...latencies);
    lines.push(
      `file: ${MANY_OBJECTS} objects; jobs flatten, info, merge, metadata: ${outcomes.join(', ')}`,
      `server peak RSS ${fmt(peakRss / MiB)} MiB (target < ${RSS_TARGET_BYTES / MiB})`,
      `/healthz ${latencies.length} probes: p99 ${fmt(p99)} ms, max ${fmt(max)} ms (target < ${HEALTHZ_TARGET_MS})`,
      `wall time: service ${fmt(serviceMs / 1000)} s, raw engines ${fmt(rawMs / 1000)} s, ratio ${fmt(serviceMs / rawMs, 2)}`,
    );
    return {
      name: 'structure-memory',
      lines,
      summary: [
        ['peak RSS MiB', fmt(peakRss / MiB)],
        ['healthz p99 ms', fmt(p99)],
        ['healthz max ms', fmt(max)],
        ['service/raw', fmt(serviceMs / rawMs, 2)],
      ],
      ok:
        peakRss < RSS_TARGET_BYTES &&
        max < HEALTHZ_TARGET_MS &&
        outcomes.every((o) => !o.includes('engine_failed')),
    };
  });
}
