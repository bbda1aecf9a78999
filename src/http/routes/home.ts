// GET /: where to go next, for a person (an HTML page of links) or a program (the same links as JSON
// when Accept prefers application/json); documented as `getHome`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebApp } from '../web-app.js';
import { opsSchemas } from './ops-schemas.js';

const LINKS = {
  docs: { href: '/docs/', title: 'API reference (rendered OpenAPI document)' },
  openapi: { href: '/openapi.json', title: 'OpenAPI 3.1 document' },
  tools: { href: '/api/v1/tools', title: 'Tool catalogue (needs an API key)' },
  health: { href: '/healthz', title: 'Liveness' },
  ready: { href: '/readyz', title: 'Readiness' },
};

const DESCRIPTION =
  'Job-based PDF processing: upload files with a tool and its options, follow the job, download the result.';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Quire</title></head>
<body>
<h1>Quire</h1>
<p>${escapeHtml(DESCRIPTION)}</p>
<ul>
${Object.values(LINKS)
  .map((l) => `<li><a href="${l.href}">${escapeHtml(l.title)}</a> <code>${l.href}</code></li>`)
  .join('\n')}
</ul>
<p>API keys go in <code>Authorization: Bearer qk_live_…</code> or <code>X-API-Key</code>.</p>
</body>
</html>
`;

/** Whether JSON is preferred over HTML, by q-value (RFC 9110 §12.5.1); ties and absence go to HTML. */
function prefersJson(request: FastifyRequest): boolean {
  const quality = (type: string) => {
    let best = -1;
    for (const part of (request.headers.accept ?? '').split(',')) {
      const [range = '', ...params] = part.trim().toLowerCase().split(';');
      const q = Number(
        params
          .map((p) => p.trim())
          .find((p) => p.startsWith('q='))
          ?.slice(2) ?? 1,
      );
      if (range === type) return Number.isNaN(q) ? 0 : q;
      if (range === '*/*' || range === `${type.split('/')[0]}/*`)
        best = Math.max(best, Number.isNaN(q) ? 0 : q);
    }
    return best;
  };
  return quality('application/json') > quality('text/html');
}

/** GET /: the web app's page when it was built (web/), else a page of links; JSON for programs. */
export function registerHomeRoute(app: FastifyInstance, web: WebApp | undefined): void {
  app.get('/', { config: { scope: 'public' }, schema: opsSchemas.home }, async (request, reply) => {
    reply.header('Vary', 'Accept');
    if (prefersJson(request)) return { name: 'Quire API', description: DESCRIPTION, links: LINKS };
    if (web)
      return reply
        .type('text/html; charset=utf-8')
        .header('Content-Security-Policy', web.policy)
        .send(web.page);
    return reply
      .type('text/html; charset=utf-8')
      .header(
        'Content-Security-Policy',
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      )
      .send(PAGE);
  });
}
