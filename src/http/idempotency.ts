// Idempotency-Key on every keyed POST and PUT (docs/api.md §4): the key is claimed before the handler runs,
// the finished response is stored and replayed byte for byte, refusals release the key.
// Routes whose fingerprint needs the body read first (the job and batch requests) mark themselves `deferred`
// and call `completedResponse` once they know it; every other POST is fingerprinted up front.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseItem } from 'structured-headers';
import { QuireError } from '../errors/quire-error.js';
import type { IdempotencyScope, StoredResponse } from '../store/types.js';
import type { AppDeps } from './deps.js';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: IdempotencyHandle;
  }
  interface FastifyContextConfig {
    /** `deferred`: the handler computes the fingerprint itself (after reading the body). */
    idempotency?: 'deferred';
    /** Rewrites a stored body before it is kept (e.g. so no API-key secret is stored). */
    idempotencyStoredBody?: (body: Buffer) => Buffer;
    /** Request headers that are part of what is asked (tus's `Upload-Length`…): fingerprinted too. */
    idempotencyHeaders?: readonly string[];
  }
}

interface IdempotencyHandle {
  scope: IdempotencyScope;
  /** Set while this request holds the key. */
  token?: string;
  /** Set when an earlier request with the key finished. */
  completed?: { fingerprint: string; response: StoredResponse };
  fingerprint?: string;
  settled: boolean;
}

const KEY = /^[\x20-\x7e]{1,255}$/;
/** A claim left by a process that died is taken over after this; longer than any upload we allow. */
const LOCK_MS = 60 * 60_000;
/** Statuses of requests refused before they started (docs/api.md §4): the key stays usable. */
// 408: a body cut for idleness was never a whole request; 412: a tus version this server does not speak.
const REFUSALS = new Set([400, 401, 403, 408, 412, 413, 415, 429]);
/**
 * Headers of this one exchange rather than of the answer: a replay sends its own. Everything else
 * the route set (Content-Type, Location, the tus headers, Preference-Applied) is stored with the body.
 */
const PER_EXCHANGE = new Set([
  'connection',
  'content-length',
  'date',
  'keep-alive',
  'transfer-encoding',
  'x-request-id',
]);
const perExchange = (name: string) => PER_EXCHANGE.has(name) || name.startsWith('ratelimit');

/** The key from the header: 1–255 printable ASCII characters, or an sf-string (RFC 9651). */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const invalid = () =>
    new QuireError('invalid_idempotency_key', 'Idempotency-Key must be 1–255 printable ASCII characters.', {
      errors: [{ field: 'Idempotency-Key', detail: 'must be 1–255 printable ASCII characters' }],
    });
  if (Array.isArray(header)) throw invalid();
  let key = header.trim();
  if (key.startsWith('"')) {
    try {
      const [value, params] = parseItem(key);
      if (typeof value !== 'string' || params.size > 0) throw invalid();
      key = value;
    } catch {
      throw invalid();
    }
  }
  if (!KEY.test(key)) throw invalid();
  return key;
}

/** SHA-256 over canonical JSON (keys sorted), so the same request always gives the same value. */
export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * For deferred routes, once the fingerprint is known: the replay of an earlier identical request,
 * 422 for a different one, or undefined when this request holds the key and should go on.
 */
/**
 * The stored response to replay when this request's key already completed with the same
 * fingerprint; throws `idempotency_key_reused` for a different one. Sending is separate so a
 * route can discard what it stored (a replayed upload) before the client hears back.
 */
export function completedResponse(request: FastifyRequest, fingerprint: string): StoredResponse | undefined {
  const handle = request.idempotency;
  if (!handle) return undefined;
  handle.fingerprint = fingerprint;
  if (!handle.completed) return undefined;
  handle.settled = true;
  if (handle.completed.fingerprint !== fingerprint) throw reused();
  return handle.completed.response;
}

export function sendReplay(reply: FastifyReply, response: StoredResponse): FastifyReply {
  return reply
    .code(response.status)
    .headers({ ...response.headers, 'Idempotent-Replayed': 'true' })
    .send(response.body);
}

/**
 * Completes the request's key now with `response`, before the answer is sent: for an answer that is
 * not stored byte for byte (POST /run's streamed result, or its 503 while the job goes on), what a
 * retry needs to find the same job. Nothing when the request holds no key.
 */
export async function completeNow(
  request: FastifyRequest,
  deps: Pick<AppDeps, 'db' | 'config'>,
  response: StoredResponse,
): Promise<void> {
  const handle = request.idempotency;
  if (!handle?.token || handle.settled || handle.fingerprint === undefined) return;
  handle.settled = true;
  const expiresAt = Date.now() + deps.config.retention.idempotencyMs;
  await deps.db.idempotency.complete(handle.scope, handle.token, handle.fingerprint, response, expiresAt);
}

/** The named headers' values (absent ones as null); nothing for a route that names none. */
function headersOf(request: FastifyRequest, names: readonly string[] | undefined): { headers?: unknown } {
  if (!names) return {};
  return { headers: names.map((name) => request.headers[name] ?? null) };
}

function reused(): QuireError {
  return new QuireError(
    'idempotency_key_reused',
    'This Idempotency-Key was used for a different request; use a new key for a new request.',
  );
}

export function registerIdempotency(app: FastifyInstance, deps: AppDeps): void {
  const store = deps.db.idempotency;

  // preHandler: after authentication, rate limiting and body validation, so requests refused by
  // those never claim a key.
  app.addHook('preHandler', async (request, reply) => {
    const config = request.routeOptions.config;
    if ((request.method !== 'POST' && request.method !== 'PUT') || !request.auth || config.methodNotAllowed)
      return;
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (key === undefined) return;
    const scope = {
      accountId: request.auth.accountId,
      method: request.method,
      route: request.routeOptions.url ?? request.url,
      key,
    };
    const claim = await store.claim(scope, { lockMs: LOCK_MS });
    if (claim.outcome === 'in_flight') {
      throw new QuireError('idempotency_key_in_use', 'A request with this Idempotency-Key is in progress.', {
        headers: { 'Retry-After': '1' },
      });
    }
    const handle: IdempotencyHandle = { scope, settled: false };
    if (claim.outcome === 'claimed') handle.token = claim.token;
    else handle.completed = { fingerprint: claim.fingerprint, response: claim.response };
    request.idempotency = handle;
    if (config.idempotency === 'deferred') return;
    const fingerprint = fingerprintOf({
      params: request.params,
      body: request.body ?? null,
      ...headersOf(request, config.idempotencyHeaders),
    });
    const stored = completedResponse(request, fingerprint);
    return stored ? sendReplay(reply, stored) : undefined;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const handle = request.idempotency;
    if (!handle?.token || handle.settled) return payload;
    handle.settled = true;
    const storable =
      !REFUSALS.has(reply.statusCode) &&
      reply.statusCode < 500 &&
      handle.fingerprint !== undefined &&
      (typeof payload === 'string' || Buffer.isBuffer(payload) || payload == null);
    if (!storable) {
      await store.release(handle.scope, handle.token);
      return payload;
    }
    const raw = payload == null ? Buffer.alloc(0) : Buffer.from(payload as string | Buffer);
    const body = request.routeOptions.config.idempotencyStoredBody?.(raw) ?? raw;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined && !perExchange(name)) headers[name] = String(value);
    }
    const expiresAt = Date.now() + deps.config.retention.idempotencyMs;
    await store.complete(
      handle.scope,
      handle.token,
      handle.fingerprint!,
      { status: reply.statusCode, headers, body },
      expiresAt,
    );
    return payload;
  });

  // A response that never reached onSend (the client went away mid-request) must not keep the
  // key locked until the lock expires.
  app.addHook('onResponse', async (request) => {
    const handle = request.idempotency;
    if (!handle?.token || handle.settled) return;
    handle.settled = true;
    await store.release(handle.scope, handle.token);
  });
}
