// compare over HTTP on a real `quire serve` (child process, embedded default): the report and the
// marked-up copy in one ZIP, facts that carry counts and page numbers but no words of the files,
// the refusal of compare as a later step of a chain, and a 500-page pair that finishes within the
// engine limits while the server's RSS stays flat (the engine reads one page at a time in its own
// process).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDIFF_VENV } from '../../src/engines/pdfdiff/pdfdiff.js';
import { type CliProcess, freePort, readInitialKey, startCli, waitForReady } from '../support/cli-process.js';
import { Client } from '../support/client.js';
import { unzip } from '../support/pdf.js';
import { rssBytes, sampleRss } from '../support/process-memory.js';

const MiB = 1024 * 1024;
const FIXTURES = path.resolve(import.meta.dirname, '../support/compare-fixtures.py');
const LONG_PAGES = 500;
let dataDir: string;
let pairs: string;
let serve: CliProcess;
let client: Client;

const python = (args: string[]) =>
  execFileSync(`${PDFDIFF_VENV}/bin/python`, ['-I', ...args], { encoding: 'utf8' });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'quire-compare-e2e-'));
  pairs = path.join(dataDir, 'pairs');
  python([FIXTURES, pairs]);
  python([FIXTURES, pairs, 'long', String(LONG_PAGES)]);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  serve = startCli(['serve'], { QUIRE_DATA_DIR: dataDir, QUIRE_PORT: String(port), QUIRE_LOG_LEVEL: 'warn' });
  await waitForReady(url);
  client = new Client(url, await readInitialKey(dataDir));
}, 60_000);
afterAll(async () => {
  await serve?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** The JSON example of docs/tools.md's compare section. */
function documentedReport(): unknown {
  const tools = readFileSync(path.resolve(import.meta.dirname, '../../docs/tools.md'), 'utf8');
  const section = tools.slice(tools.indexOf('\n## compare\n'));
  return JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section)![1]!);
}

/** The annotations of a PDF as [page, type, content] (PyMuPDF, the engine's venv). */
function annotations(pdf: string): Array<[number, string, string]> {
  const script =
    'import sys, json, pymupdf; d = pymupdf.open(sys.argv[1]); ' +
    'print(json.dumps([[p.number + 1, a.type[1], a.info["content"]] for p in d for a in p.annots()]))';
  return JSON.parse(python(['-c', script, pdf]));
}

describe('compare over HTTP', () => {
  it('gives the report and the new file with its changes marked in one ZIP, facts without words', async () => {
    const files = [path.join(pairs, 'old.pdf'), path.join(pairs, 'table.pdf')];
    const job = await client.run({ tool: 'compare', options: { output: 'both' }, files }, 120);
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result).toMatchObject({
      name: 'table-compare.zip',
      content_type: 'application/zip',
      identical: false,
      pages_changed: 1,
      text_changes: 1,
      pages_added: [],
      pages_removed: [],
      pages_moved: [],
    });
    // The job record is not the place for the files' words (docs/api.md, privacy).
    expect(JSON.stringify(job)).not.toMatch(/Nuts|"4[27]"|Washers/);
    const entries = await unzip((await client.download(job.id)).body);
    expect([...entries.keys()].sort()).toEqual(['table-compare.json', 'table-compared.pdf']);
    const report = JSON.parse(entries.get('table-compare.json')!.toString('utf8'));
    expect(report.pages[0].text_changes[0]).toMatchObject({ old: { text: '42' }, new: { text: '47' } });
    // The example in docs/tools.md is this report, word for word.
    expect(report).toEqual(documentedReport());
    const marked = path.join(dataDir, 'marked.pdf');
    await writeFile(marked, entries.get('table-compared.pdf')!);
    expect(annotations(marked)).toEqual([[2, 'Highlight', 'Was: 42']]);
  }, 150_000);

  it('marks deletions and removed pages in the PDF output', async () => {
    const files = [path.join(pairs, 'paragraph.pdf'), path.join(pairs, 'removed.pdf')];
    const job = await client.run({ tool: 'compare', options: { output: 'pdf', mode: 'text' }, files }, 120);
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result).toMatchObject({ content_type: 'application/pdf', pages_removed: [3] });
    const marked = path.join(dataDir, 'marked-removed.pdf');
    await writeFile(marked, (await client.download(job.id)).body);
    expect(annotations(marked)).toEqual([
      [1, 'Caret', 'Deleted: An inserted paragraph says something entirely new here.'],
      [2, 'Text', 'Page 3 of the old file was removed after this page'],
    ]);
  }, 150_000);

  it('marks moved and added pages, and visual changes no text change covers', async () => {
    const marks = async (oldFile: string, newFile: string) => {
      const files = [path.join(pairs, oldFile), path.join(pairs, newFile)];
      const job = await client.run({ tool: 'compare', options: { output: 'pdf' }, files }, 120);
      expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
      const marked = path.join(dataDir, `marked-${newFile}`);
      await writeFile(marked, (await client.download(job.id)).body);
      return annotations(marked);
    };
    expect(await marks('old.pdf', 'image.pdf')).toEqual([[3, 'Square', 'Changed in appearance']]);
    expect(await marks('removed.pdf', 'old.pdf')).toEqual([
      [3, 'Text', 'Added: this page is not in the old file'],
    ]);
    const moved = await marks('old.pdf', 'swapped.pdf');
    expect(moved).toHaveLength(1);
    expect(moved[0]).toEqual([
      expect.any(Number),
      'Text',
      expect.stringMatching(/^Moved: this was page [23] of the old file$/),
    ]);
  }, 150_000);

  it('refuses compare as a later step (it takes two files) with a pointer to the step', async () => {
    const form = await client.form({ tool: 'rotate', files: [path.join(pairs, 'old.pdf')] });
    form.delete('tool');
    form.set('steps', JSON.stringify([{ tool: 'rotate', options: { angle: 90 } }, { tool: 'compare' }]));
    const response = await client.fetch('/api/v1/jobs', { method: 'POST', body: form });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as {
      code: string;
      errors: Array<{ pointer: string; detail: string }>;
    };
    expect(problem.code).toBe('invalid_options');
    expect(problem.errors).toContainEqual({
      pointer: '/steps/1/tool',
      detail:
        'needs at least 2 files; a step after the first gets one: run the steps before it as jobs of their own and give their results to one compare job',
    });
  });

  it(`compares a ${LONG_PAGES}-page pair within the engine limits, the server's RSS flat`, async () => {
    const files = [path.join(pairs, 'long-old.pdf'), path.join(pairs, 'long-new.pdf')];
    const pid = serve.child.pid!;
    const before = rssBytes(pid);
    const rss = sampleRss(pid, 250);
    const started = Date.now();
    let job: Awaited<ReturnType<Client['run']>>;
    try {
      job = await client.run({ tool: 'compare', options: { mode: 'both' }, files }, 540);
    } finally {
      rss.stop();
    }
    const seconds = (Date.now() - started) / 1000;
    console.info(
      `compare ${LONG_PAGES} + ${LONG_PAGES} pages: ${seconds.toFixed(1)} s, server RSS ${(before / MiB).toFixed(0)} → peak ${(rss.peak() / MiB).toFixed(0)} MiB`,
    );
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result).toMatchObject({
      old_page_count: LONG_PAGES,
      new_page_count: LONG_PAGES,
      pairs: LONG_PAGES,
      pages_changed: 1,
      text_changes: 1,
    });
    const report = JSON.parse((await client.download(job.id)).body.toString('utf8'));
    expect(report.pages.map((p: { old: number; new: number }) => [p.old, p.new])).toEqual([[7, 7]]);
    expect(rss.peak() - before).toBeLessThan(100 * MiB);
  }, 600_000);
});
