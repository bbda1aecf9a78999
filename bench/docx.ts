// docx-to-pdf (office-to-pdf on a one-page .docx from the corpus) through Quire's whole flow,
// against the same LibreOffice bridge call made directly (the engine from dist/, a pool of the same
// size, no HTTP, queue or storage), interleaved in one run. Targets (issue 16, "keep the lead"):
// p50 latency ≤ 89 ms and 4 concurrent clients ≥ 14 jobs/s, the figures Quire had against
// Gotenberg's 469 ms and 2.1 jobs/s; on a loaded machine read the ratios to the bridge instead.
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { BenchClient } from './support/client.js';
import { corpusFile, repoRoot } from './support/paths.js';
import { startServer } from './support/server.js';
import { fmt, jobsPerSecond, median } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const DOCX = corpusFile('gotenberg__page_1.docx');
const RUNS = 12;
const WARM_UP = 3;
const CLIENTS = 4;
const JOBS_PER_CLIENT = 8;
const LATENCY_TARGET_MS = 89;
const RATE_TARGET = 14;
/** Quire's defaults: two LibreOffice instances (QUIRE_OFFICE_POOL_SIZE) and two worker slots. */
const POOL_SIZE = 2;

interface Bridge {
  toPdf(input: string, output: string, o: { landscape: boolean }, call: { workDir: string }): Promise<void>;
  close(): Promise<void>;
}

async function startBridge(dir: string): Promise<Bridge> {
  const url = pathToFileURL(path.join(repoRoot, 'dist/engines/libreoffice/libreoffice.js')).href;
  const { createLibreoffice } = (await import(url)) as {
    createLibreoffice: (o: Record<string, unknown>) => Bridge;
  };
  return createLibreoffice({
    size: POOL_SIZE,
    recycleAfter: 1_000,
    workRoot: path.join(dir, 'office'),
    memoryBytes: 2 * 1024 ** 3,
    timeoutMs: 120_000,
  });
}

export async function docx(): Promise<BenchResult> {
  return withTempDir('docx', async (dir) => {
    const input = path.join(dir, 'page.docx');
    await copyFile(DOCX, input);
    const server = await startServer('serve');
    const bridge = await startBridge(dir);
    try {
      const client = new BenchClient(server.baseUrl, server.key);
      const quireJob = async () => (await client.flow('office-to-pdf', {}, [input])).totalMs;
      const bridgeJob = async (n: number) => {
        const started = performance.now();
        await bridge.toPdf(input, path.join(dir, `out-${n}.pdf`), { landscape: false }, { workDir: dir });
        return performance.now() - started;
      };
      for (let i = 0; i < WARM_UP; i++) {
        await quireJob();
        await bridgeJob(i);
      }
      const quire: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        quire.push(await quireJob());
        raw.push(await bridgeJob(i));
      }
      const quireRate = await jobsPerSecond(CLIENTS, JOBS_PER_CLIENT, quireJob);
      const rawRate = await jobsPerSecond(CLIENTS, JOBS_PER_CLIENT, bridgeJob);
      const q = median(quire);
      const r = median(raw);
      return {
        name: 'docx',
        lines: [
          `docx: ${path.basename(DOCX)} to PDF, ${RUNS} interleaved runs each`,
          `  Quire full flow p50 ${fmt(q)} ms; runs [${quire.map((v) => fmt(v, 0)).join(', ')}]`,
          `  bridge call (same engine, no HTTP) p50 ${fmt(r)} ms; runs [${raw.map((v) => fmt(v, 0)).join(', ')}]`,
          `  ${CLIENTS} concurrent clients: Quire ${fmt(quireRate, 2)} jobs/s, bridge ${fmt(rawRate, 2)} jobs/s (pool of ${POOL_SIZE} each)`,
        ],
        summary: [
          [
            'latency p50 Quire / bridge',
            `${fmt(q)} / ${fmt(r)} ms = ${fmt(q / r, 2)}x (target ≤ ${LATENCY_TARGET_MS} ms)`,
          ],
          [
            `${CLIENTS} clients Quire / bridge`,
            `${fmt(quireRate, 2)} / ${fmt(rawRate, 2)} jobs/s = ${fmt(quireRate / rawRate, 2)}x (target ≥ ${RATE_TARGET})`,
          ],
        ],
        ok: q <= LATENCY_TARGET_MS && quireRate >= RATE_TARGET,
      };
    } catch (error) {
      process.stderr.write(`server output (tail):\n${server.output().slice(-4000)}\n`);
      throw error;
    } finally {
      await bridge.close();
      await server.stop();
    }
  });
}
