// Builds the Fastify application: hooks for request ids, auth, logs and metrics; problem+json for
// every error; the routes. No listening here — composition roots and tests decide the port.
import { once } from 'node:events';
import multipart from '@fastify/multipart';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { ulid } from 'ulid';
import { type AuthContext, requireScope } from '../auth/authenticate.js';
import { QuireError } from '../errors/quire-error.js';
import type { Scope } from '../model/account.js';
import type { AppDeps } from './deps.js';
import { registerIdempotency } from './idempotency.js';
import { registerDocs } from './openapi.js';
import { sendProblem, toQuireError } from './problem.js';
import { authenticateAndLimit } from './rate-limit.js';
import { registerAccountRoutes } from './routes/accounts.js';
import { registerFileRoutes } from './routes/files.js';
import { registerHomeRoute } from './routes/home.js';
import { registerJobRoutes } from './routes/jobs.js';
import { registerOpsRoutes } from './routes/ops.js';
import { registerToolRoutes } from './routes/tools.js';
import { registerWebhookRoutes } from './routes/webhooks.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook; absent on public routes. */
    auth?: AuthContext;
  }
  interface FastifyContextConfig {
    /** Who may call the route; every /api/ route declares it (see `RouteScope`). */
    scope?: RouteScope;
    /** Marks the generated 405 routes so they are not counted as real ones. */
    methodNotAllowed?: boolean;
  }
}

/**
 * A key holding this scope, any valid key (`any_key`), or no key at all (`public`: operations
 * endpoints, and download links, whose token is the capability). Checked once, in the app's
 * onRequest hook: before the route's own hooks (the job upload's size check) and before any body is
 * read, so a client without access gets 401/403, never 413 or 400.
 */
export type RouteScope = Scope | 'any_key' | 'public';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // Typed as the base logger so route modules take the plain FastifyInstance.
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Fastify's own request logs print raw URLs (which can carry download tokens); ours use templates.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${ulid()}`;
    },
    bodyLimit: 1024 * 1024,
    // Download tokens are path parameters of a few hundred characters.
    routerOptions: { maxParamLength: 4096 },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { coerceTypes: true, allErrors: true } },
  });

  await app.register(multipart, {
    limits: {
      fileSize: deps.config.limits.uploadMaxFileBytes,
      files: deps.config.limits.uploadMaxFiles,
      fields: 10,
      fieldSize: 64 * 1024,
      parts: deps.config.limits.uploadMaxFiles + 10,
      headerPairs: 100,
    },
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    // No id, cursor or filter contains NUL; PostgreSQL text cannot even hold one, so refuse it the
    // same way on every database rather than fail deep inside a query.
    if (/%00/.test(request.url)) {
      throw new QuireError('invalid_request', 'The URL must not contain NUL characters (%00).');
    }
    const scope = request.routeOptions.config.scope;
    if (scope === undefined || scope === 'public') return;
    await authenticateAndLimit(request, reply, deps);
    if (scope !== 'any_key') requireScope(request.auth!, scope);
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    deps.metrics.httpDuration.observe(
      { method: request.method, route, status_code: reply.statusCode },
      seconds,
    );
    request.log.info(
      {
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        account: request.auth?.accountId,
        key: request.auth?.keyId,
      },
      'request',
    );
  });

  app.setErrorHandler(async (error, request, reply) => {
    const problem = toQuireError(error);
    // Answered before the body was read: read the rest of a small body so the client (which may
    // still be sending) gets the answer; close the connection rather than read a large one.
    if (!(await drainSmallBody(request))) reply.header('Connection', 'close');
    if (problem.status >= 500) request.log.error({ err: redactableError(error) }, 'request failed');
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new QuireError('not_found', notFoundDetail(request))),
  );

  registerIdempotency(app, deps);
  trackRoutes(app);
  await registerDocs(app, deps);
  registerHomeRoute(app);
  registerOpsRoutes(app, deps);
  registerToolRoutes(app, deps);
  registerJobRoutes(app, deps);
  registerFileRoutes(app, deps);
  registerAccountRoutes(app, deps);
  registerWebhookRoutes(app, deps);
  registerMethodNotAllowed(app);
  return app;
}

/** Bodies up to this size are read to the end after an early error; larger ones close the connection. */
const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;
const DRAIN_TIMEOUT_MS = 5_000;

async function drainSmallBody(request: FastifyRequest): Promise<boolean> {
  const raw = request.raw;
  if (raw.complete || raw.readableEnded) return true;
  const declared = Number(request.headers['content-length']);
  if (!(declared <= DRAIN_LIMIT_BYTES)) return false;
  raw.unpipe();
  raw.resume();
  const ended = await Promise.race([
    once(raw, 'end').then(() => true),
    new Promise<boolean>((resolve) => setTimeout(resolve, DRAIN_TIMEOUT_MS, false).unref()),
  ]).catch(() => false);
  return ended;
}

function notFoundDetail(request: FastifyRequest): string {
  return request.url.startsWith('/api/') ? 'No such resource.' : 'No such route.';
}

/** Error details for the log: type, code and stack, never the request or engine text it may quote. */
function redactableError(error: unknown): Record<string, unknown> {
  const e = error as Error & { code?: string };
  return { type: e.name, code: e.code, stack: e.stack };
}

/** Answers 405 with `Allow` for known paths requested with a method they do not serve. */
function registerMethodNotAllowed(app: FastifyInstance): void {
  const methodsByUrl = new Map<string, Set<string>>();
  for (const route of collectedRoutes.get(app) ?? []) {
    const set = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const method of route.methods) set.add(method);
    // Fastify answers HEAD for every GET route by itself.
    if (set.has('GET')) set.add('HEAD');
    methodsByUrl.set(route.url, set);
  }
  const all = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
  for (const [url, methods] of methodsByUrl) {
    const missing = all.filter((m) => !methods.has(m));
    if (missing.length === 0) continue;
    const allow = [...methods].join(', ');
    app.route({
      method: missing,
      url,
      config: { methodNotAllowed: true },
      handler: async (_request, reply) => {
        reply.header('Allow', allow);
        return sendProblem(reply, new QuireError('method_not_allowed', `Allowed: ${allow}.`));
      },
    });
  }
}

const collectedRoutes = new WeakMap<FastifyInstance, { url: string; methods: string[] }[]>();

/** Records routes as they are added so the 405 handler knows which methods each path serves. */
function trackRoutes(app: FastifyInstance): void {
  const list: { url: string; methods: string[] }[] = [];
  collectedRoutes.set(app, list);
  app.addHook('onRoute', (route) => {
    // Only the API's own routes: plugin routes (docs assets) declare their methods themselves.
    if (route.config?.methodNotAllowed || !route.url.startsWith('/api/')) return;
    // A route that forgot its scope would be open to anyone: refuse to build the app instead.
    if (route.config?.scope === undefined) throw new Error(`${route.url} declares no scope`);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    list.push({ url: route.url, methods: methods.map(String) });
  });
}

/**
 * Stops accepting, lets in-flight requests finish for up to `graceMs`, then drops what is left (a
 * client that stopped reading or sending must not hold a shutdown, or a deploy, forever).
 */
export async function closeApp(app: FastifyInstance, graceMs: number): Promise<void> {
  const timer = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}
