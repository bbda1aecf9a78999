// Operations endpoints (docs/api.md §9): liveness, readiness with dependency checks, Prometheus metrics.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { opsSchemas } from './ops-schemas.js';

export function registerOpsRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/healthz', { config: { scope: 'public' }, schema: opsSchemas.health }, async () => ({
    status: 'ok',
  }));

  app.get(
    '/readyz',
    {
      config: { scope: 'public' },
      schema: opsSchemas.ready,
    },
    async (_request, reply) => {
      const [database, storage] = await Promise.all([
        check(() => deps.db.ping()),
        check(() => deps.blobs.ping()),
      ]);
      const engines = Object.fromEntries(
        deps.engineStatus.map((e) => [
          e.name,
          e.available ? { status: 'ok', version: e.version } : { status: 'missing', reason: e.reason },
        ]),
      );
      // Without qpdf no PDF tool can run; the optional engines only limit the catalogue.
      const ready =
        database.status === 'ok' &&
        storage.status === 'ok' &&
        deps.engineStatus.some((e) => e.name === 'qpdf' && e.available);
      return reply
        .code(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'not_ready', checks: { database, storage, engines } });
    },
  );

  app.get(
    '/metrics',
    { config: { scope: 'public' }, schema: opsSchemas.metrics },
    async (_request, reply) => {
      reply.type(deps.metrics.registry.contentType);
      return deps.metrics.registry.metrics();
    },
  );
}

async function check(probe: () => Promise<void>): Promise<{ status: 'ok' | 'error' }> {
  try {
    await probe();
    return { status: 'ok' };
  } catch {
    // The error text can name hosts or paths; readiness reports only the verdict.
    return { status: 'error' };
  }
}
