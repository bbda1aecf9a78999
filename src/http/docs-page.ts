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

/** The job and batch requests: multipart bodies whose try-it form the page fills from an example. */
const UPLOAD_ROUTES = ['/api/v1/jobs', '/api/v1/batches'];

/**
 * The document as the page reads it (`/docs/document.json`): /openapi.json with what Scalar's try-it
 * form needs to send a working job request as it opens. Scalar 1.72 ticks a multipart row only when
 * its part is required (a composition at the body's root ticks every row, and once the form is
 * edited the empty ones are sent too: an empty `file_url` is refused). So here `tool` and `file`, the
 * parts a first job needs, are required; the body's description still says `steps` may replace
 * `tool`, and `file_url` or `upload_id` a `file`. Each example gets a `file` of `@document.pdf`,
 * which the generated curl writes as a file part (`--form 'file=@document.pdf'`). Generators and
 * fuzzers read /openapi.json, which has neither change.
 */
export function pageDocument(document: Record<string, unknown>): Record<string, unknown> {
  const view = structuredClone(document) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, MediaView> } }>>;
  };
  for (const route of UPLOAD_ROUTES) {
    const media = view.paths[route]?.post?.requestBody?.content['multipart/form-data'];
    if (!media) continue;
    media.schema.required = ['tool', 'file'];
    for (const example of Object.values(media.examples ?? {})) example.value.file = ['@document.pdf'];
  }
  return view;
}

interface MediaView {
  schema: Record<string, unknown>;
  examples?: Record<string, { value: Record<string, unknown> }>;
}

export async function registerDocsPage(
  app: FastifyInstance,
  document: () => Record<string, unknown>,
): Promise<void> {
  let view: Record<string, unknown> | undefined;
  app.get('/docs/document.json', { schema: { hide: true } }, async () => {
    view ??= pageDocument(document());
    return view;
  });
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
        url: '/docs/document.json',
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
