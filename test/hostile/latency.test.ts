// Per-job latency of the warm LibreOffice and Chromium pools, measured at the engine tier so the
// sandbox's cost is visible without HTTP and queue noise. Opt-in (QUIRE_MEASURE_LATENCY=1): it
// takes a minute and its numbers only mean something on an otherwise idle machine.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createChromium } from '../../src/engines/chromium/chromium.js';
import { createLibreoffice } from '../../src/engines/libreoffice/libreoffice.js';
import { officeDocuments } from '../support/heavy-fixtures.js';
import { pageText } from '../support/pdf.js';

const WARMUP = 2;
const RUNS = 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function timed(times: number[], fn: () => Promise<void>): Promise<void> {
  const started = performance.now();
  await fn();
  times.push(performance.now() - started);
}

describe.runIf(process.env.QUIRE_MEASURE_LATENCY === '1')('warm pool latency', () => {
  const workRoot = path.join(os.tmpdir(), 'quire-latency-pools');
  const office = createLibreoffice({
    size: 1,
    recycleAfter: 1000,
    workRoot: path.join(workRoot, 'office'),
    memoryBytes: 2 * 1024 ** 3,
    timeoutMs: 60_000,
  });
  const browser = createChromium({
    size: 1,
    recycleAfter: 1000,
    workRoot: path.join(workRoot, 'browser'),
    timeoutMs: 60_000,
  });
  afterAll(() => Promise.all([office.close(), browser.close()]));

  it('converts a docx and prints a page, reporting the median of warm runs', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-latency-'));
    const { docx } = officeDocuments('Latency4');
    const site = path.join(dir, 'site');
    await mkdir(site);
    await writeFile(path.join(site, 'index.html'), '<h1>Page Latency4</h1><p>text</p>');
    const officeMs: number[] = [];
    const htmlMs: number[] = [];
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const out = path.join(dir, `office-${i}.pdf`);
      await timed(officeMs, () => office.toPdf(docx, out, { landscape: false }, { workDir: dir }));
      expect(pageText(out)).toContain('Latency4');
      const printed = path.join(dir, `html-${i}.pdf`);
      const print = {
        pageSize: 'a4',
        landscape: false,
        marginMm: 10,
        printBackground: true,
        waitMs: 0,
      } as const;
      await timed(htmlMs, () => browser.htmlToPdf(site, 'index.html', printed, print, { workDir: dir }));
      expect(pageText(printed)).toContain('Latency4');
    }
    const report = {
      office_first_ms: Math.round(officeMs[0] ?? 0),
      office_median_ms: Math.round(median(officeMs.slice(WARMUP))),
      html_first_ms: Math.round(htmlMs[0] ?? 0),
      html_median_ms: Math.round(median(htmlMs.slice(WARMUP))),
    };
    console.log(`latency ${JSON.stringify(report)}`);
  }, 300_000);
});
