// Chromium adapter: prints an uploaded HTML page (and its uploaded assets) to PDF. The page sees
// only its own files: every request is answered by our route handler from the job's site folder
// or refused; nothing reaches the network or the file system outside that folder.
import { writeFile } from 'node:fs/promises';
import { QuireError } from '../../errors/quire-error.js';
import { AbortedError } from '../../process/runner.js';
import type { EngineCallOptions } from '../call-options.js';
import { skiaPageCount } from './pdf-pages.js';
import { createSharedBrowser } from './shared-browser.js';
import { SITE_ORIGIN, serveSite } from './site.js';
import type { Tab } from './tabs.js';

export { SITE_ORIGIN, siteFile } from './site.js';

export type PageSize = 'a4' | 'a3' | 'a5' | 'letter' | 'legal';

export interface PrintOptions {
  pageSize: PageSize;
  landscape: boolean;
  marginMm: number;
  printBackground: boolean;
  /** Extra time after `load` for scripts to finish drawing (bounded by the tool, ≤ 10 s). */
  waitMs: number;
  /**
   * Chromium's tagged printing (printToPDF `generateTaggedPDF`): a structure tree built from the
   * page's accessibility tree, with the document outline from its headings.
   */
  tagged?: boolean;
}

/**
 * Loads the entry page in the job's tab and prints it. One navigation: the tab's page is the empty
 * one it was opened with, or wiped back to one (tabs.ts), and every request it makes is answered
 * from `siteDir`. Returns the page count when Chromium's output can be read without qpdf.
 */
async function print(
  tab: Tab,
  siteDir: string,
  entry: string,
  output: string,
  o: PrintOptions,
  timeoutMs: number,
): Promise<number | undefined> {
  tab.serve = (route) => serveSite(siteDir, route);
  const url = `${SITE_ORIGIN}/${encodeURI(entry)}`;
  const response = await tab.page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
  if (!response?.ok()) throw new QuireError('unsupported_file', 'The page could not be loaded');
  if (o.waitMs > 0) await tab.page.waitForTimeout(o.waitMs);
  const margin = `${o.marginMm}mm`;
  const pdf = await tab.page.pdf({
    format: o.pageSize,
    landscape: o.landscape,
    printBackground: o.printBackground,
    margin: { top: margin, right: margin, bottom: margin, left: margin },
    ...(o.tagged ? { tagged: true, outline: true } : {}),
  });
  await writeFile(output, pdf);
  return skiaPageCount(pdf);
}

export interface ChromiumOptions {
  /** Pages printed at once in the one browser. */
  size: number;
  recycleAfter: number;
  recycleRssBytes?: number;
  /** How long a job's wiped tab waits for its account's next job (0: a fresh context per job). */
  keepTabMs?: number;
  workRoot: string;
  timeoutMs: number;
  onFinished?: (durationMs: number) => void;
}

export function createChromium(opts: ChromiumOptions) {
  const browser = createSharedBrowser(opts);
  return {
    /**
     * Prints `siteDir/entry` to `output` and returns its page count if Chromium's output gave it.
     * Past the time limit, or on cancel, the page's context is closed, which ends its renderer (a
     * page stuck in a script loop cannot be stopped politely); other pages print on. With
     * `account`, the print may run in that account's last tab, wiped, and leave its own behind.
     */
    async htmlToPdf(
      siteDir: string,
      entry: string,
      output: string,
      o: PrintOptions,
      call: EngineCallOptions,
      account?: string,
    ): Promise<{ pages: number | undefined }> {
      const timeoutMs = call.timeoutMs ?? opts.timeoutMs;
      const started = performance.now();
      try {
        const pages = await browser.use(account, (tab) =>
          bounded(print(tab, siteDir, entry, output, o, timeoutMs), timeoutMs, call.signal),
        );
        return { pages };
      } finally {
        opts.onFinished?.(performance.now() - started);
      }
    },
    close: () => browser.close(),
  };
}

/** Rejects with `timeout` or AbortedError first if the work outlives its limit or is canceled. */
function bounded<T>(work: Promise<T>, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  work.catch(() => {}); // settles after the instance is killed; nobody waits for it then
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new QuireError('timeout', `The page did not print within ${Math.round(timeoutMs / 1000)} s`, {
            extras: { timeout_ms: timeoutMs },
          }),
        ),
      timeoutMs,
    );
    const onAbort = () => reject(new AbortedError(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    });
  });
}

export type Chromium = ReturnType<typeof createChromium>;
