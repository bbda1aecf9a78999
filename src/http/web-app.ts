// The web app (web/, built into web/dist by scripts/build-web.sh): its page at GET / for browsers and
// its hashed assets under /assets/, under a strict Content-Security-Policy (no inline script, no eval).
// Asset URLs in the page are relative, and a <base> names the public path when QUIRE_PUBLIC_BASE_URL
// has one, so the app works under a sub-path behind a reverse proxy.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** web/dist from src/http/ (tests) and from dist/http/ (built): both sit two folders below the repo. */
const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));
/** Hashed file names change with their content: a year, and never revalidated. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/** The policy of the app's page: its own scripts, styles and workers (pdf.js) and API calls only. */
export function webAppPolicy(publicBaseUrl: string): string {
  // Download links point at the public base; another origin than the page's is allowed by name.
  const origin = publicBaseUrl ? ` ${new URL(publicBaseUrl).origin}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob:${origin}`,
    `connect-src 'self'${origin}`,
    "worker-src 'self'",
    "font-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface WebApp {
  /** The page sent for GET / (with its <base> when the public URL has a path). */
  page: string;
  policy: string;
}

/** Reads the built page once at start; undefined when web/dist was not built (the links page stays). */
export function loadWebApp(publicBaseUrl: string): WebApp | undefined {
  const index = `${WEB_DIST}index.html`;
  if (!existsSync(index)) return undefined;
  const basePath = publicBaseUrl ? new URL(publicBaseUrl).pathname.replace(/\/*$/, '/') : '/';
  let page = readFileSync(index, 'utf8');
  if (basePath !== '/') page = page.replace('<head>', `<head>\n    <base href="${encodeURI(basePath)}" />`);
  return { page, policy: webAppPolicy(publicBaseUrl) };
}

export async function registerWebAssets(app: FastifyInstance, web: WebApp): Promise<void> {
  await app.register(fastifyStatic, {
    root: `${WEB_DIST}assets`,
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    wildcard: true,
    cacheControl: false,
    setHeaders(res) {
      res.setHeader('Cache-Control', ASSET_CACHE);
      res.setHeader('Content-Security-Policy', web.policy);
      res.setHeader('X-Content-Type-Options', 'nosniff');
    },
  });
}
