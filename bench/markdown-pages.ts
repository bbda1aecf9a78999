// pdf-to-markdown on long inputs (issue 30: bounded memory on a 1,000-page input): the same kind of
// page (a heading of its own, two paragraphs, a running footer, and a ruled table on every tenth page,
// written with PyMuPDF) 100 and 1,000 times, each converted through `quire serve` with
// `drop_headers_footers`. The tool runs one survey and then one engine process per 50 pages, so the
// largest engine process and the server's RSS must not grow with the page count. Sampled every
// 100 ms: the server's RSS, and the RSS of every process below it that runs in the pymupdf4llm venv.
// Targets: the 1,000-page engine peak within 10 % of the 100-page one; server RSS growth < 100 MiB.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BenchClient } from './support/client.js';
import { RssSampler, readMemory } from './support/memory.js';
import { descendants } from './support/process-tree.js';
import { startServer } from './support/server.js';
import { fmt, MiB } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const ENGINE_PYTHON = '/opt/quire-pymupdf4llm/bin/python';
const PAGE_COUNTS = [100, 1000] as const;
const SERVER_GROWTH_TARGET = 100 * MiB;
const ENGINE_GROWTH_TARGET = 1.1;
/** 1,000 pages take 2–3 minutes at load 15–20; a stuck run still ends inside the bench's limit. */
const JOB_DEADLINE_MS = 8 * 60_000;
const WRITE_PDF = `
import sys, pymupdf
doc = pymupdf.open()
text = "The steady committee reviewed the annual budget of the district before the winter. " * 6
for i in range(int(sys.argv[2])):
    page = doc.new_page()
    page.insert_text((72, 150), f"Chapter {i + 1}", fontsize=18)
    page.insert_textbox(pymupdf.Rect(72, 170, 520, 300), f"Page {i + 1}. " + text, fontsize=11)
    page.insert_textbox(pymupdf.Rect(72, 310, 520, 440), text, fontsize=11)
    if i % 10 == 0:
        for r in range(5):
            page.draw_line((72, 460 + r * 20), (432, 460 + r * 20))
            for c in range(4):
                page.insert_text((78 + c * 90, 475 + r * 20), f"R{r}C{c} {i}", fontsize=10)
        for c in range(5):
            page.draw_line((72 + c * 90, 460), (72 + c * 90, 540))
        page.draw_line((72, 540), (432, 540))
    page.insert_text((72, 800), f"Working paper, page {i + 1}", fontsize=8)
doc.save(sys.argv[1], garbage=3, deflate=True)
`;

/** The highest RSS of any one engine interpreter below `pid`, sampled until stopped, and how many ran. */
function engineSampler(pid: number) {
  let peak = 0;
  const seen = new Set<number>();
  const timer = setInterval(() => {
    for (const child of descendants(pid).slice(1)) {
      try {
        // The interpreter itself, not the bubblewrap processes around it (their arguments name it too).
        if (!readFileSync(`/proc/${child}/cmdline`, 'utf8').startsWith(`${ENGINE_PYTHON}\0`)) continue;
      } catch {
        continue;
      }
      const rss = readMemory(child)?.rssBytes;
      if (rss === undefined || !Number.isFinite(rss)) continue;
      seen.add(child);
      peak = Math.max(peak, rss);
    }
  }, 100);
  return { stop: () => clearInterval(timer), peak: () => peak, processes: () => seen.size };
}

interface Run {
  pages: number;
  seconds: number;
  enginePeak: number;
  engineProcesses: number;
  serverBefore: number;
  serverPeak: number;
  outcome: string;
}

async function convert(client: BenchClient, serverPid: number, file: string, pages: number): Promise<Run> {
  const serverBefore = readMemory(serverPid)?.rssBytes ?? 0;
  const server = new RssSampler(serverPid, 100).start();
  const engine = engineSampler(serverPid);
  const started = performance.now();
  try {
    const created = await client.createJob('pdf-to-markdown', { drop_headers_footers: true }, [file]);
    const job = await client.waitTerminal(created.id, JOB_DEADLINE_MS);
    const result = job.result as { headings?: number } | undefined;
    const outcome = `${job.status}${job.error ? ` (${job.error.code})` : `, ${result?.headings} headings`}`;
    return {
      pages,
      seconds: (performance.now() - started) / 1000,
      enginePeak: engine.peak(),
      engineProcesses: engine.processes(),
      serverBefore,
      serverPeak: server.peakRssBytes,
      outcome,
    };
  } finally {
    engine.stop();
    server.stop();
  }
}

export async function markdownPages(): Promise<BenchResult> {
  return withTempDir('markdown-pages', async (dir) => {
    const runs: Run[] = [];
    const server = await startServer('serve');
    try {
      const client = new BenchClient(server.baseUrl, server.key);
      for (const pages of PAGE_COUNTS) {
        const file = path.join(dir, `long-${pages}.pdf`);
        execFileSync(ENGINE_PYTHON, ['-I', '-c', WRITE_PDF, file, String(pages)]);
        runs.push(await convert(client, server.pid, file, pages));
      }
    } finally {
      await server.stop();
    }
    const [short, long] = runs as [Run, Run];
    const lines = runs.map(
      (r) =>
        `${r.pages} pages: ${r.outcome}; ${fmt(r.seconds)} s (${fmt(r.seconds / r.pages, 3)} s/page); largest engine process ${fmt(r.enginePeak / MiB)} MiB of ${r.engineProcesses} engine runs; server RSS ${fmt(r.serverBefore / MiB)} → peak ${fmt(r.serverPeak / MiB)} MiB`,
    );
    const engineRatio = long.enginePeak / short.enginePeak;
    const serverGrowth = Math.max(...runs.map((r) => r.serverPeak - r.serverBefore));
    return {
      name: 'markdown-pages',
      lines,
      summary: [
        ['engine peak 1,000 / 100 pages', `${fmt(engineRatio, 3)} (target ≤ ${ENGINE_GROWTH_TARGET})`],
        ['engine peak MiB', fmt(long.enginePeak / MiB)],
        ['server RSS growth MiB', `${fmt(serverGrowth / MiB)} (target < ${SERVER_GROWTH_TARGET / MiB})`],
        ['1,000 pages s', fmt(long.seconds)],
      ],
      ok:
        runs.every((r) => r.outcome.startsWith('succeeded')) &&
        engineRatio <= ENGINE_GROWTH_TARGET &&
        serverGrowth < SERVER_GROWTH_TARGET,
    };
  });
}
