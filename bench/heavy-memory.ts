// Memory of the worker with its engine pools over many conversions: 50 html-to-pdf and 50
// office-to-pdf jobs, alternating, one at a time. Target: the RSS of the server and all its
// children after the last job is within 20 % of the RSS after the first 5 of each. Recycling is
// switched off for the run (it would hide a leak by restarting the leaker), so this measures
// whether the instances themselves grow.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BenchClient } from './support/client.js';
import { treeMemory } from './support/process-tree.js';
import { startServer } from './support/server.js';
import { fmt, MiB, median } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const JOBS_PER_TOOL = 50;
const BASELINE_AFTER = 5;
const TOLERANCE = 0.2;
/** Lets pools settle (a recycled instance's replacement starts lazily) before reading RSS. */
const SETTLE_MS = 1_000;

const HTML = `<!doctype html><html><head><style>h1{color:#234}</style></head><body>
<h1>Memory benchmark</h1>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>'.repeat(40)}
<script>document.body.insertAdjacentHTML('beforeend', '<p>scripted</p>')</script></body></html>`;

async function fixtures(dir: string): Promise<{ html: string; docx: string }> {
  const html = path.join(dir, 'page.html');
  await writeFile(html, HTML);
  const txt = path.join(dir, 'letter.txt');
  await writeFile(txt, 'A letter for the memory benchmark.\n'.repeat(200));
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${dir}/lo`,
      '--headless',
      '--convert-to',
      'docx:MS Word 2007 XML',
      '--outdir',
      dir,
      txt,
    ],
    { stdio: 'ignore', timeout: 120_000 },
  );
  return { html, docx: path.join(dir, 'letter.docx') };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

export async function heavyMemory(): Promise<BenchResult> {
  return withTempDir('heavy', async (dir) => {
    const files = await fixtures(dir);
    const server = await startServer('serve', {
      QUIRE_WORKER_CONCURRENCY: '1',
      QUIRE_OFFICE_POOL_SIZE: '1',
      QUIRE_BROWSER_POOL_SIZE: '1',
      QUIRE_OFFICE_RECYCLE_AFTER: '1000',
      QUIRE_BROWSER_RECYCLE_AFTER: '1000',
    });
    try {
      const client = new BenchClient(server.baseUrl, server.key);
      const samples: { jobs: number; rssBytes: number; pssBytes: number; processes: number }[] = [];
      const ms: number[] = [];
      let baseline = 0;
      for (let i = 1; i <= JOBS_PER_TOOL; i++) {
        ms.push((await client.flow('html-to-pdf', {}, [files.html])).totalMs);
        ms.push((await client.flow('office-to-pdf', {}, [files.docx])).totalMs);
        if (i === BASELINE_AFTER || i % 10 === 0) {
          await settle();
          const tree = treeMemory(server.pid);
          samples.push({ jobs: i * 2, ...tree });
          if (i === BASELINE_AFTER) baseline = tree.rssBytes;
        }
      }
      const last = samples.at(-1)!;
      const growth = last.rssBytes / baseline - 1;
      const lines = samples.map(
        (s) =>
          `after ${String(s.jobs).padStart(3)} jobs: RSS ${fmt(s.rssBytes / MiB)} MiB, PSS ${fmt(s.pssBytes / MiB)} MiB in ${s.processes} processes`,
      );
      lines.push(`median job (create → download): ${fmt(median(ms), 0)} ms`);
      return {
        name: 'heavy-memory',
        lines,
        summary: [
          [`RSS after ${BASELINE_AFTER * 2} jobs`, `${fmt(baseline / MiB)} MiB`],
          [`RSS after ${JOBS_PER_TOOL * 2} jobs`, `${fmt(last.rssBytes / MiB)} MiB`],
          [`PSS after ${JOBS_PER_TOOL * 2} jobs`, `${fmt(last.pssBytes / MiB)} MiB`],
          ['growth', `${fmt(growth * 100)} % (target ≤ ${TOLERANCE * 100} %)`],
          ['median job', `${fmt(median(ms), 0)} ms`],
        ],
        ok: Math.abs(growth) <= TOLERANCE,
      };
    } finally {
      await server.stop();
    }
  });
}
