// Chromium adapter: prints an uploaded HTML page (and its uploaded assets) to PDF. The page sees
// only its own files: every request is answered by our route handler from the job's site folder
// or refused; nothing reaches the network or the file system outside that folder.
import { readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Route } from 'playwright-core';
import { QuireError } from '../../errors/quire-error.js';
import { AbortedError } from '../../process/runner.js';
import type { EngineCallOptions } from '../call-options.js';
import { skiaPageCount } from './pdf-pages.js';
import { createSharedBrowser, type Tab } from './shared-browser.js';

/**
 * The page's origin. `.invalid` is reserved (RFC 2606) and never resolves, so even a request the
 * handler somehow missed cannot reach a real host of that name.
 */
export const SITE_ORIGIN = 'http://quire.invalid';

const MIME: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
};

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
 * The file under `siteDir` a site URL names, or undefined when it names anything else: another
 * origin, a path that leaves the folder (`..`, encoded or not, or a symlink), or a missing file.
 */
export async function siteFile(siteDir: string, url: string): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.origin !== SITE_ORIGIN) return undefined;
  let relative: string;
  try {
    relative = decodeURIComponent(parsed.pathname);
  } catch {
    return undefined;
  }
  const candidate = path.resolve(siteDir, `.${path.posix.normalize(`/${relative}`)}`);
  try {
    const real = await realpath(candidate);
    const root = await realpath(siteDir);
    return real.startsWith(`${root}${path.sep}`) ? real : undefined;
  } catch {
    return undefined;
  }
}

async function serveSite(siteDir: string, route: Route): Promise<void> {
  const file = await siteFile(siteDir, route.request().url());
  if (!file) return route.abort('blockedbyclient');
  const body = await readFile(file).catch(() => undefined);
  if (!body) return route.abort('blockedbyclient');
  const type = MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  return route.fulfill({ status: 200, body, headers: { 'content-type': type } });
}

/**
 * Loads the entry page in the job's fresh tab and prints it. One navigation: the tab's page is
 * still the empty one it was opened with, and every request it makes is answered from `siteDir`.
 * Returns the page count when Chromium's output can be read without qpdf.
 */
async function print(
  tab: Tab,
  siteDir: string,
  entry: string,
  output: string,
  o: PrintOptions,
  timeoutMs: number,
): Promise<number | undefined> {
  await tab.context.route('**/*', (route) => serveSite(siteDir, route));
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
     * page stuck in a script loop cannot be stopped politely); other pages print on.
     */
    async htmlToPdf(
      siteDir: string,
      entry: string,
      output: string,
      o: PrintOptions,
      call: EngineCallOptions,
    ): Promise<{ pages: number | undefined }> {
      const timeoutMs = call.timeoutMs ?? opts.timeoutMs;
      const started = performance.now();
      try {
        const pages = await browser.use((tab) =>
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
