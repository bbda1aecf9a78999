// Builds the Fastify application: hooks for request ids, auth, logs and metrics; problem+json for
// every error; the routes. No listening here — composition roots and tests decide the port.
import { once } from 'node:events';
import type { Duplex } from 'node:stream';
import multipart from '@fastify/multipart';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { type AuthContext, requireScope } from '../auth/authenticate.js';
import { QuireError } from '../errors/quire-error.js';
import type { Scope } from '../model/account.js';
import { ulid } from '../model/ulid.js';
import { idleCut, registerBodySlots } from './body-slots.js';
import type { AppDeps } from './deps.js';
import { registerIdempotency } from './idempotency.js';
import { jobParserLimits } from './job-request/limits.js';
import { registerMcpRoute } from './mcp/route.js';
import { registerMethodNotAllowed, trackRoutes } from './method-not-allowed.js';
import { registerDocs } from './openapi.js';
import { rawProblemResponse, sendProblem, toQuireError } from './problem.js';
import { authenticateAndLimit } from './rate-limit.js';
import { registerAccountRoutes } from './routes/accounts.js';
import { registerBatchRoutes } from './routes/batches.js';
import { registerFileRoutes } from './routes/files.js';
import { registerHomeRoute } from './routes/home.js';
import { registerJobWebhookSecretRoutes } from './routes/job-webhook-secret.js';
import { registerJobRoutes } from './routes/jobs.js';
import { registerOpsRoutes } from './routes/ops.js';
import { registerRecipeRoutes } from './routes/recipes.js';
import { registerToolRoutes } from './routes/tools.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { loadWebApp, registerWebAssets } from './web-app.js';

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
 * onRequest hook: before the route's own hooks (the job request's size check) and before any body is
 * read, so a client without access gets 401/403, never 413 or 400.
 */
/**
 * Probes answered every few seconds by load balancers, orchestrators and Prometheus: their request
 * lines are debug, so the default level logs traffic, not polling (a probe's line cost as much as
 * the probe).
 */
const PROBE_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/** The request line: ids, route template, status and time, never the raw URL or a header. */
function logRequest(request: FastifyRequest, reply: FastifyReply, route: string): void {
  request.log[PROBE_ROUTES.has(route) ? 'debug' : 'info'](
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
}

/** Several scopes: the key needs every one (POST /run creates a job and hands out its result). */
export type RouteScope = Scope | readonly Scope[] | 'any_key' | 'public';

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
    clientErrorHandler: answerClientError,
    // Node answers a Host-less HTTP/1.1 request itself with an empty 400; `requireHost` answers it
    // with problem+json instead.
    http: { requireHostHeader: false },
    frameworkErrors: answerFrameworkError,
    ajv: { customOptions: { coerceTypes: true, allErrors: true } },
  });

  // The limits POST /jobs is parsed under; POST /batches passes its own (job-request/limits.ts).
  await app.register(multipart, { limits: jobParserLimits(deps.config.limits) });

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
    if (scope === 'any_key') return;
    for (const needed of typeof scope === 'string' ? [scope] : scope) requireScope(request.auth!, needed);
  });
  app.addHook('onRequest', requireHost);
  registerBodySlots(app, {
    idleTimeoutMs: deps.config.limits.uploadIdleTimeoutMs,
    maxConcurrentPerAccount: deps.config.limits.uploadMaxConcurrentPerAccount,
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    deps.metrics.httpDuration.observe(
      { method: request.method, route, status_code: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    logRequest(request, reply, route);
  });

  app.setErrorHandler(answerError);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new QuireError('not_found', notFoundDetail(request))),
  );

  registerIdempotency(app, deps);
  trackRoutes(app);
  await registerDocs(app, deps);
  const web = loadWebApp(deps.config.http.publicBaseUrl);
  registerHomeRoute(app, web);
  if (web) await registerWebAssets(app, web);
  registerOpsRoutes(app, deps);
  registerToolRoutes(app, deps);
  registerJobRoutes(app, deps);
  registerBatchRoutes(app, deps);
  registerRecipeRoutes(app, deps);
  registerJobWebhookSecretRoutes(app, deps);
  registerFileRoutes(app, deps);
  registerAccountRoutes(app, deps);
  registerWebhookRoutes(app, deps);
  registerMcpRoute(app, deps);
  registerMethodNotAllowed(app);
  return app;
}

async function answerError(
  this: FastifyInstance,
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  // A client that went away (reset, or cut by the idle timeout) is no fault of ours: its stream
  // errors (ERR_STREAM_PREMATURE_CLOSE, ECONNRESET) are noted at debug only. The answer still goes
  // through Fastify's send path, to no one, because onSend hooks (the Idempotency-Key release) run
  // only there: Fastify runs no onResponse hook for a response that never finished.
  const cut = idleCut(request);
  if (cut) {
    reply.header('Connection', 'close');
    return sendProblem(reply, cut);
  }
  if (request.raw.destroyed && !request.raw.complete) {
    request.log.debug({ code: (error as { code?: string }).code }, 'client closed the connection');
    return sendProblem(reply, new QuireError('request_timeout', 'The connection closed mid-request.'));
  }
  const problem = toQuireError(error);
  // Answered before the body was read: read the rest of a small body so the client (which may
  // still be sending) gets the answer; close the connection rather than read a large one.
  if (!(await drainSmallBody(request))) reply.header('Connection', 'close');
  if (problem.status >= 500) request.log.error({ err: redactableError(error) }, 'request failed');
  return sendProblem(reply, problem);
}

/** RFC 9112 §3.2: a server must answer 400 to an HTTP/1.1 request without a Host header. */
async function requireHost(request: FastifyRequest): Promise<void> {
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined)
    throw new QuireError('invalid_request', 'An HTTP/1.1 request needs a Host header.');
}

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (CL with TE, a bad
 * Content-Length, oversized headers, header timeouts); they get the same problem+json as the rest.
 */
function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Duplex): void {
  // A reset socket has no one to answer (Node's own handling does the same).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new QuireError('headers_too_large', 'The request line and headers exceed 16 KiB.')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new QuireError('request_timeout', 'The request headers did not arrive in time.')
        : new QuireError('invalid_request', 'The HTTP request is malformed.');
  this.log.debug({ code: error.code }, 'client error');
  // Like Node's own handler: once an answer has started, another one would corrupt the stream.
  const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || started?.headersSent) return void socket.destroy();
  // The socket is half-open (the server allows it): close it once the answer is written.
  socket.end(rawProblemResponse(problem, `req_${ulid()}`), () => socket.destroy());
  setTimeout(() => socket.destroy(), 1_000).unref();
}

/** Router-level refusals (an over-long or badly encoded path), which bypass the error handler. */
function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // No onRequest hook ran for these: the request id header is set here.
  reply.header('X-Request-Id', request.id);
  void sendProblem(reply, toQuireError(error));
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
