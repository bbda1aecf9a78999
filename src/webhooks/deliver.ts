// One webhook attempt: POST the stored bytes with the signature headers through the one guarded
// outbound client (outbound/request.ts): SSRF guard, time limit, no redirects followed, at most a
// short response excerpt kept.
import { performance } from 'node:perf_hooks';
import { readExcerpt, sendOutbound } from '../outbound/request.js';

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
  try {
    return done(await send(new URL(rawUrl), headers, body, options));
  } catch (error) {
    return done(failure(errorClassOf(error)));
  }
}

async function send(
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
  options: DeliverOptions,
): Promise<Omit<AttemptResult, 'latencyMs'>> {
  // A fresh connection per attempt (sendOutbound), each through the guarded lookup: attempts to one
  // endpoint are minutes apart anyway. The status arrived in time: a body cut short by the time
  // limit still counts as answered.
  const response = await sendOutbound({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(options.timeoutMs),
    allowPrivate: options.allowPrivate,
    userAgent: USER_AGENT,
  });
  const status = response.statusCode ?? 0;
  return {
    statusCode: status,
    // Redirects are failures and are not followed (docs/api.md §6): the target was validated, a
    // Location was not.
    errorClass:
      status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? 'redirect' : 'http_status',
    retryAfter: response.headers['retry-after'],
    responseExcerpt: await readExcerpt(response, EXCERPT_BYTES),
  };
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
