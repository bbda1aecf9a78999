// One webhook attempt over HTTP: POST the stored bytes with the signature headers, through the SSRF
// guard, within the time limit, never following redirects, keeping at most a short response excerpt.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { guardedLookup, hostOf, isPublicAddress } from './address-guard.js';

export interface AttemptResult {
  statusCode: number | null;
  latencyMs: number;
  /** Null on success (2xx). */
  errorClass: string | null;
  responseExcerpt: string | null;
  retryAfter: string | undefined;
}

export interface DeliverOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** Enough of a response to tell what went wrong; receivers may echo data, so no more is kept. */
const EXCERPT_BYTES = 256;
const USER_AGENT = 'Quire-Webhooks/1';

export async function postWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: Buffer,
  options: DeliverOptions,
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (partial: Omit<AttemptResult, 'latencyMs'>): AttemptResult => ({
    ...partial,
    latencyMs: performance.now() - started,
  });
  const url = new URL(rawUrl);
  const host = hostOf(url);
  // Literal addresses never go through `lookup`, so they are judged here; they cannot re-resolve.
  if (!options.allowPrivate && net.isIP(host) && !isPublicAddress(host)) {
    return done(failure('blocked_address'));
  }
  try {
    return done(await send(url, headers, body, options));
  } catch (error) {
    return done(failure(errorClassOf(error)));
  }
}

function send(
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
  options: DeliverOptions,
): Promise<Omit<AttemptResult, 'latencyMs'>> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(body.length),
        'user-agent': USER_AGENT,
        ...headers,
      },
      // A fresh connection per attempt, each through the guarded lookup: a pooled socket would skip
      // the address check, and attempts to one endpoint are minutes apart anyway.
      agent: false,
      lookup: guardedLookup(options.allowPrivate),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    request.once('error', reject);
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const finish = () => {
        const status = response.statusCode ?? 0;
        const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
        resolve({
          statusCode: status,
          // Redirects are failures and are not followed (docs/api.md §6): the target was validated,
          // a Location was not.
          errorClass:
            status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? 'redirect' : 'http_status',
          responseExcerpt: excerpt === '' ? null : excerpt,
          retryAfter: response.headers['retry-after'],
        });
        response.destroy();
      };
      response.on('data', (chunk: Buffer) => {
        if (kept < EXCERPT_BYTES) chunks.push(chunk);
        kept += chunk.length;
        if (kept >= EXCERPT_BYTES) finish();
      });
      response.once('end', finish);
      // The status arrived in time: a body cut short by the time limit still counts as answered.
      response.once('error', finish);
      response.once('aborted', finish);
    });
    request.end(body);
  });
}

function failure(errorClass: string): Omit<AttemptResult, 'latencyMs'> {
  return { statusCode: null, errorClass, responseExcerpt: null, retryAfter: undefined };
}

/** A stable class for the delivery log; never the error message, which may quote the receiver. */
function errorClassOf(error: unknown): string {
  const e = error as { code?: string; name?: string };
  if (e.code === 'EBLOCKEDADDRESS') return 'blocked_address';
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'ABORT_ERR') return 'timeout';
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' || e.code === 'ENODATA') return 'dns_failure';
  if (e.code === 'ECONNREFUSED') return 'connection_refused';
  if (e.code === 'ECONNRESET' || e.code === 'EPIPE') return 'connection_reset';
  if (e.code === 'ETIMEDOUT' || e.code === 'ENETUNREACH' || e.code === 'EHOSTUNREACH') return 'unreachable';
  if (e.code?.startsWith('ERR_TLS') || e.code?.startsWith('CERT_') || e.code?.includes('CERT'))
    return 'tls_error';
  return 'connection_error';
}
