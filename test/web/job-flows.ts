// The flows about a job's life: OCR progress moving in a live region, cancel while it runs, and a
// 300 MB upload over tus resumed after a reload at half-way. Nothing is looked at while a job runs
// that could let it finish unseen (an OCR of four pages can take a second on an idle machine): axe
// runs on the canceled job, and on a queued one in app.test.ts.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { concatPdfs, imagePdf, textPdf } from '../support/heavy-fixtures.js';
import { axeViolations } from './browser.js';
import { chooseFiles, openTool, signInWithLink, sparsePdf } from './flows.js';

let scanned: string | undefined;
/** Four scanned pages (images only), made once per test file: slow enough to watch OCR move. */
export function scannedPdf(): string {
  if (!scanned) {
    const text = textPdf('ocr-source.pdf', ['Quire reads this page', 'line two of the scan']);
    const page = imagePdf(text, 'ocr-page.pdf');
    scanned = concatPdfs([page, page, page, page], 'ocr-scan.pdf');
  }
  return scanned;
}

async function startOcr(p: Page, app: string, key: string): Promise<void> {
  await signInWithLink(p, app, key);
  await openTool(p, app, 'ocr');
  await chooseFiles(p, [scannedPdf()]);
  await p.getByLabel('Mode').selectOption('force');
  await p.getByRole('button', { name: /^Run / }).click();
}

export async function ocrProgressFlow(p: Page, app: string, key: string): Promise<void> {
  await startOcr(p, app, key);
  const bar = p.getByRole('progressbar', { name: 'Job progress' });
  await bar.waitFor();
  expect(await p.locator('.progress-box').getAttribute('aria-live')).toBe('polite');
  const seen: number[] = [];
  await expect
    .poll(
      async () => {
        seen.push(Number(await bar.getAttribute('value')));
        return p.locator('.progress-box .badge').textContent();
      },
      { timeout: 120_000, interval: 100 },
    )
    .toBe('succeeded');
  // Moving: at least one value between the start and the end was shown, never going back, and the
  // bar ends full. (On an idle machine the OCR can be quick enough that one in-between value is all
  // a 100 ms poll sees.)
  expect(seen.filter((v) => v > 0 && v < 100).length).toBeGreaterThanOrEqual(1);
  expect(seen).toEqual([...seen].sort((a, b) => a - b));
  expect(Number(await bar.getAttribute('value'))).toBe(100);
}

/** Returns the axe findings on the canceled job's screen, light and dark. */
export async function cancelFlow(p: Page, app: string, key: string): Promise<string[]> {
  await startOcr(p, app, key);
  await p.getByText('processing').first().waitFor({ timeout: 60_000 });
  await p.getByRole('button', { name: 'Cancel job' }).click();
  await expect
    .poll(() => p.locator('.progress-box .badge').textContent(), { timeout: 30_000 })
    .toBe('canceled');
  await p.getByRole('alert').filter({ hasText: 'The job was canceled.' }).waitFor();
  const findings: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await p.emulateMedia({ colorScheme });
    findings.push(...(await axeViolations(p)).map((v) => `${colorScheme}: ${v}`));
  }
  return findings;
}

/** 300 MB over tus; the page is reloaded past half-way and the upload goes on from the server's offset. */
export async function tusResumeFlow(p: Page, app: string, key: string): Promise<void> {
  const big = await sparsePdf('big.pdf', 300 * 1000 * 1000);
  const offsets: number[] = [];
  p.on('request', (request) => {
    const offset = request.headers()['upload-offset'];
    if (request.method() === 'PATCH' && offset !== undefined) offsets.push(Number(offset));
  });
  await signInWithLink(p, app, key);
  await openTool(p, app, 'compress');
  await chooseFiles(p, [big]);
  await p.getByRole('button', { name: /^Run / }).click();
  const bar = p.getByRole('progressbar', { name: 'Upload of big.pdf' });
  await expect
    .poll(async () => Number(await bar.getAttribute('value')), { timeout: 120_000 })
    .toBeGreaterThan(150e6);
  await p.reload();
  const beforeReload = Math.max(...offsets);
  offsets.length = 0;
  await openTool(p, app, 'compress');
  await chooseFiles(p, [big]);
  await p.getByRole('button', { name: /^Run / }).click();
  // The job is created on the finished upload (the zeros are no PDF, so it then fails: not the point).
  await p.locator('.progress-box .badge').waitFor({ timeout: 120_000 });
  expect(offsets[0]).toBeGreaterThanOrEqual(100e6);
  // At most what was sent: the last PATCH seen started at beforeReload and carries one 16 MiB chunk;
  // the next may have started (the server keeps the bytes that arrived: 64 KiB of it once) before
  // its request event reached the test, so the bound is two chunks.
  expect(offsets[0]).toBeLessThanOrEqual(beforeReload + 2 * 16 * 1024 * 1024);
  await rm(path.dirname(big), { recursive: true, force: true });
}
