// What a printed page can load: its job's site folder, answered by our route handler, and nothing
// else. Every request the handler cannot answer from that folder is refused.
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Route } from 'playwright-core';

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

/**
 * Answers one request of the page from `siteDir`. `no-store`: a tab may print the next job of the
 * same account, and neither its HTTP cache nor the renderer's memory cache may hand that job a
 * file of this one under the same URL.
 */
export async function serveSite(siteDir: string, route: Route): Promise<void> {
  const file = await siteFile(siteDir, route.request().url());
  if (!file) return route.abort('blockedbyclient');
  const body = await readFile(file).catch(() => undefined);
  if (!body) return route.abort('blockedbyclient');
  const type = MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  return route.fulfill({ status: 200, body, headers: { 'content-type': type, 'cache-control': 'no-store' } });
}
