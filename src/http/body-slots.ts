// What a request body may hold on the server while it arrives: a body that stops arriving is cut
// after the idle timeout (its socket, and through the reader's cleanup its partial blob, go with it),
// and each account has a bounded number of bodies in progress at once in this process: multipart job
// and batch requests and tus chunks, which docs/api.md §5 calls uploads in progress.
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { QuireError } from '../errors/quire-error.js';
import { Tally } from '../model/tally.js';
import { rawProblemResponse } from './problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body is read by the route itself (a tus chunk): it takes a body slot like a multipart one. */
    tusBody?: boolean;
  }
}

export interface BodySlotSettings {
  /** A body that receives no byte for this long (while we are waiting for one) is cut. */
  idleTimeoutMs: number;
  /** Bodies one account may have in progress at once, per API process. */
  maxConcurrentPerAccount: number;
}

export function registerBodySlots(app: FastifyInstance, settings: BodySlotSettings): void {
  const inProgress = new Tally<string>();

  app.addHook('onRequest', async (request, reply) => {
    if (hasBody(request)) cutWhenIdle(request, reply.raw, settings.idleTimeoutMs);
  });

  // preHandler: after authentication and the route's own checks, and after the multipart parser
  // marked the request (it reads nothing until the handler asks for parts).
  app.addHook('preHandler', async (request, reply) => {
    const isUpload = request.isMultipart() || (request.routeOptions.config.tusBody && hasBody(request));
    if (!request.auth || !isUpload) return;
    const account = request.auth.accountId;
    const held = inProgress.of(account);
    if (held >= settings.maxConcurrentPerAccount) {
      throw new QuireError(
        'concurrent_uploads_exceeded',
        `This account already has ${held} uploads in progress, the most allowed at once; retry when one finishes.`,
        {
          extras: { limit: 'concurrent_uploads', quota: settings.maxConcurrentPerAccount },
          headers: { 'Retry-After': '1' },
        },
      );
    }
    inProgress.add(account);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      inProgress.remove(account);
    };
    // Whichever comes first: the body has arrived, the answer has gone out, or the request is torn
    // down (reset, client gone). Listeners go on the request and response, not on a keep-alive
    // socket that outlives them.
    request.raw.once('end', release);
    request.raw.once('close', release);
    reply.raw.once('finish', release);
    reply.raw.once('close', release);
  });
}

function hasBody(request: FastifyRequest): boolean {
  const { headers } = request;
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
}

/**
 * Polls the socket's byte count rather than listening for data: the HTTP parser consumes the socket
 * natively, and a listener would change how the body flows. Time spent with unread bytes buffered
 * (our side being slow, e.g. a blob store under load) is not the client's idleness.
 */
function cutWhenIdle(request: FastifyRequest, response: ServerResponse, idleTimeoutMs: number): void {
  const raw = request.raw;
  const socket = raw.socket;
  let lastBytes = socket.bytesRead;
  let lastProgress = Date.now();
  const timer = setInterval(
    () => {
      if (raw.complete || raw.destroyed) return clearInterval(timer);
      if (socket.bytesRead !== lastBytes || raw.readableLength > 0) {
        lastBytes = socket.bytesRead;
        lastProgress = Date.now();
        return;
      }
      if (Date.now() - lastProgress < idleTimeoutMs) return;
      clearInterval(timer);
      cut(request, response, idleTimeoutMs);
    },
    Math.max(25, Math.floor(idleTimeoutMs / 4)),
  );
  timer.unref();
  raw.once('close', () => clearInterval(timer));
}

/** Backstop: a cut request whose 408 has not gone out by then is closed without it. */
const CUT_WRITE_GRACE_MS = 5_000;
const cutRequests = new WeakMap<FastifyRequest, QuireError>();

/** The 408 of a request whose body was cut for idleness, for the error handler to answer. */
export function idleCut(request: FastifyRequest): QuireError | undefined {
  return cutRequests.get(request);
}

function cut(request: FastifyRequest, response: ServerResponse, idleTimeoutMs: number): void {
  const raw = request.raw;
  const error = new QuireError(
    'request_timeout',
    `No part of the request body arrived for ${idleTimeoutMs} ms; the connection was closed.`,
  );
  request.log.debug({ idleMs: idleTimeoutMs }, 'request body idle: connection cut');
  const destroy = () => {
    raw.destroy(error);
  };
  if (response.headersSent) {
    destroy();
    return;
  }
  cutRequests.set(request, error);
  if (raw.listenerCount('error') > 0) {
    // A reader is attached (the multipart parser, Fastify's body parser): failing the stream it
    // reads, without closing the socket, ends the request through the error handler, which
    // deletes stored parts and releases the Idempotency-Key before its 408 closes the connection.
    raw.unpipe();
    raw.emit('error', error);
    setTimeout(destroy, CUT_WRITE_GRACE_MS).unref();
    return;
  }
  // Nothing reads the body yet (the handler is still before it): answer on the socket and close.
  const socket = raw.socket;
  if (!socket.writable) {
    destroy();
    return;
  }
  setTimeout(destroy, CUT_WRITE_GRACE_MS).unref();
  socket.end(rawProblemResponse(error, request.id), destroy);
}
