// The peer-style reference for html-to-pdf: a bare playwright-core script that launches the same
// Debian Chromium once and, per job, opens a fresh context and page, sets the HTML, prints and
// closes — what Gotenberg does. Run as its own process (so its CPU can be read from /proc): each
// stdin line is `{"html": path, "out": path}`, each stdout line is `ok` or `error <message>`.
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

/** The browser binary the chromium engine launches (src/engines/chromium/browser-instance.ts). */
const CHROMIUM_BINARY = '/usr/lib/chromium/chromium';

/** Quire's default margin (html-to-pdf `margin_mm: 10`), so both print the same page. */
const MARGIN = { top: '10mm', right: '10mm', bottom: '10mm', left: '10mm' };

async function main(): Promise<void> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_BINARY, headless: true });
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    try {
      const { html, out } = JSON.parse(line) as { html: string; out: string };
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.setContent(await readFile(html, 'utf8'), { waitUntil: 'load' });
      await page.pdf({ path: out, format: 'a4', printBackground: true, margin: MARGIN });
      await context.close();
      process.stdout.write('ok\n');
    } catch (error) {
      process.stdout.write(`error ${(error as Error).message.split('\n')[0]}\n`);
    }
  }
  await browser.close();
}

void main();
