// The one guarded HTTP client for everything Quire sends out: webhook deliveries and per-job
// callbacks (webhooks/deliver.ts), URL imports and exports (jobs/transfer-http.ts). http(s) only;
// literal addresses judged before connecting and every resolved name judged at connect time
// (address-guard.ts); a fresh connection each time, so no pooled socket skips the guard; a redirect
// is handed to the caller as an answer (webhooks fail on it; imports follow up to five, each one a
// new guarded request); a time limit through the caller's signal; at most an excerpt of an answer kept. The TSA is reached by the signing driver, pinned to an address this guard approved
// (engines/pyhanko/timestamp.ts).
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { BlockedAddressError, guardedLookup, hostOf, isPublicAddress } from './address-guard.js';

export interface OutboundRequest {
  method: 'GET' | 'PUT' | 'POST';
  url: URL;
  headers: Record<string, string>;
  /** Aborts the exchange: a time limit, a lost lease, a cancel. */
  signal: AbortSignal;
  allowPrivate: boolean;
  /** Names the sender to the receiver (`Quire-Webhooks/1`, `Quire-Transfers/1`). */
  userAgent: string;
  /** A streamed body of a known length, or bytes. */
  body?: { stream: Readable; length: number } | Buffer;
  /** Given the connection's socket, e.g. to watch its bytes for a stall. */
  onSocket?: (socket: net.Socket) => void;
}

/** A URL scheme other than http and https: refused before anything is sent. */
export class SchemeError extends Error {
  override name = 'SchemeError';
}

/**
 * Resolves with the response once its head arrives; the caller reads or destroys the body. Rejects
 * with SchemeError, BlockedAddressError (code EBLOCKEDADDRESS) for a non-public address, or the
 * network's own error.
 */
export function sendOutbound(request: OutboundRequest): Promise<http.IncomingMessage> {
  const { url, body } = request;
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.reject(new SchemeError('only http and https URLs are fetched'));
  const host = hostOf(url);
  // Literal addresses never reach `lookup`; `2130706433` and `[::ffff:127.0.0.1]` arrive here already
  // parsed by WHATWG URL into the addresses they are.
  if (!request.allowPrivate && net.isIP(host) && !isPublicAddress(host))
    return Promise.reject(new BlockedAddressError('the URL points to a non-public address'));
  const length = body === undefined ? undefined : Buffer.isBuffer(body) ? body.length : body.length;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(url, {
      method: request.method,
      headers: {
        'user-agent': request.userAgent,
        ...(length === undefined ? {} : { 'content-length': String(length) }),
        ...request.headers,
      },
      agent: false,
      lookup: guardedLookup(request.allowPrivate),
      signal: request.signal,
    });
    if (request.onSocket) outgoing.once('socket', request.onSocket);
    outgoing.once('error', reject);
    outgoing.once('response', resolve);
    if (body === undefined) outgoing.end();
    else if (Buffer.isBuffer(body)) outgoing.end(body);
    else {
      body.stream.once('error', (error) => outgoing.destroy(error));
      body.stream.pipe(outgoing);
    }
  });
}

/**
 * The first `maxBytes` of an answer's body as text (null when empty), then the connection is closed:
 * enough to tell what went wrong, and a receiver may echo data, so no more is kept. A body cut short
 * (time limit, reset) yields what arrived.
 */
export function readExcerpt(response: http.IncomingMessage, maxBytes: number): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const excerpt = Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
      response.destroy();
      resolve(excerpt === '' ? null : excerpt);
    };
    response.on('data', (chunk: Buffer) => {
      if (kept < maxBytes) chunks.push(chunk);
      kept += chunk.length;
      if (kept >= maxBytes) finish();
    });
    response.once('end', finish);
    response.once('error', finish);
    response.once('aborted', finish);
  });
}
