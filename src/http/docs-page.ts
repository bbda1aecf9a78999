// GET /docs: the OpenAPI document rendered by Scalar, served from the npm package (no CDN, no web
// fonts, no telemetry, no AI or MCP buttons) under a strict Content-Security-Policy that works over plain http on any host.
import { createHash } from 'node:crypto';
import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';

/**
 * The page's one inline script (Scalar's start-up call) is allowed by its hash, computed from the
 * page as sent, so nothing else inline runs. Scalar injects its styles at run time, hence
 * 'unsafe-inline' for styles only. No upgrade-insecure-requests: on a plain-http host other than
 * localhost it would send the page's own requests to https and leave it blank.
 */
function contentSecurityPolicy(html: string): string {
  const hashes = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '')
        .digest('base64')}'`,
  );
  return [
    "default-src 'none'",
    `script-src 'self' ${hashes.join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    // "Try it" calls this same server.
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      const type = String(reply.getHeader('content-type') ?? '');
      if (type.startsWith('text/html') && typeof payload === 'string') {
        reply.header('Content-Security-Policy', contentSecurityPolicy(payload));
      }
      reply.header('X-Content-Type-Options', 'nosniff');
      return payload;
    });
    await scope.register(scalar, {
      routePrefix: '/docs',
      logLevel: 'warn',
      configuration: {
        url: '/openapi.json',
        pageTitle: 'Quire API reference',
        withDefaultFonts: false,
        telemetry: false,
        showDeveloperTools: 'never',
        documentDownloadType: 'json',
        // Both call scalar.com services: nothing on this page leaves the server.
        agent: { disabled: true },
        mcp: { disabled: true },
      },
    });
  });
}
