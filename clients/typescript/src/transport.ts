// Every request the SDK sends: the key header, an Idempotency-Key on each POST and PUT, and retries of network
// errors, 409 in flight, 429 and 5xx with `Retry-After` honoured and jittered back-off, within a budget.
import { errorFromResponse, networkError, QuireError, retryableStatus } from './errors.js';

export interface RetryPolicy {
  /** Attempts after the first; 0 turns retries off. */
  maxRetries: number;
  /** No retry starts later than this many ms after the first attempt. */
  budgetMs: number;
  /** Base of the exponential back-off when the server gives no Retry-After. */
  baseDelayMs: number;
  /** The longest single wait. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 5,
  budgetMs: 120_000,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

/** The latest `RateLimit` / `RateLimit-Policy` headers (IETF draft, structured fields) seen. */
export interface RateLimitState {
  /** Requests left in the window (`r`). */
  remaining?: number;
  /** Seconds until the full quota is back (`t`). */
  resetSeconds?: number;
  /** Quota per window (`q` of the policy). */
  limit?: number;
  /** Window length in seconds (`w` of the policy). */
  windowSeconds?: number;
  raw: { rateLimit: string | null; policy: string | null };
}

/** Where a BodyWriter puts a request body: each write settles once the bytes are taken. */
export interface BodySink {
  write(chunk: Uint8Array): Promise<void>;
}

/** Writes one attempt's whole body into `sink` (Node: see node-http.ts and multipart.ts). */
export type BodyWriter = (sink: BodySink) => Promise<void>;

/** A request to send, rebuilt for every attempt (a streamed body cannot be sent twice). */
export interface Attempt {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: () => NonNullable<RequestInit['body']> | undefined;
  /** The same body written by the SDK itself, used instead of `body` where the transport can. */
  write?: BodyWriter;
  /** A streamed body can be rebuilt for a retry only when its inputs can be read again. */
  replayable?: boolean;
  signal?: AbortSignal;
  /** Answers passed through as they are (e.g. 302 of a download, 304). */
  accept?: (status: number) => boolean;
  /** Refusals thrown at once rather than retried, for a caller with a better way out. */
  giveUpOn?: readonly string[];
  /** Failures that are final whatever their status (a job's own outcome, which a retry repeats). */
  isFinal?: (failure: QuireError) => boolean;
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

function param(text: string | null, name: string): number | undefined {
  const match = text === null ? null : new RegExp(`[;\\s]${name}=(\\d+)`).exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** A fetch for streamed request bodies; the browser entry has none and sends through `fetch`. */
export type StreamingFetch = (
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    body: BodyWriter;
    signal?: AbortSignal | undefined;
  },
) => Promise<Response>;

export class Transport {
  readonly baseUrl: string;
  readonly retry: RetryPolicy;
  /** Private (#), so neither `console.log(client)`, JSON nor an error's properties ever show it. */
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;
  /** Node only: streamed bodies through node:http (node-http.ts says why); given by the Node entry. */
  readonly #streamingFetch: StreamingFetch | undefined;
  rateLimit: RateLimitState = { raw: { rateLimit: null, policy: null } };

  constructor(options: {
    baseUrl: string;
    apiKey: string;
    retry?: Partial<RetryPolicy>;
    fetch?: typeof fetch;
    streamingFetch?: StreamingFetch;
  }) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#streamingFetch = options.fetch === undefined ? options.streamingFetch : undefined;
  }

  /**
   * `path` (from `/`) under the base URL, which may itself have a path (a server behind a proxy); an
   * absolute URL (a download link on QUIRE_PUBLIC_BASE_URL) as it is.
   */
  url(path: string): string {
    if (/^https?:\/\//i.test(path)) return path;
    return `${this.baseUrl}${path.startsWith('/') ? path : `/${path}`}`;
  }

  /** Headers that carry the key, for the SDK's own callers (tus) that send requests themselves. */
  authHeaders(): Record<string, string> {
    return { Authorization: `Bearer ${this.#apiKey}` };
  }

  /** Sends `attempt`, retrying what is worth retrying; a refused answer throws QuireError. */
  async send(attempt: Attempt): Promise<Response> {
    const headers: Record<string, string> = { ...this.authHeaders(), ...attempt.headers };
    if (
      (attempt.method === 'POST' || attempt.method === 'PUT') &&
      !Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')
    )
      headers['Idempotency-Key'] = crypto.randomUUID();
    const started = Date.now();
    for (let retry = 0; ; retry++) {
      let response: Response | undefined;
      let failure: QuireError;
      try {
        const body = attempt.write && this.#streamingFetch ? undefined : attempt.body?.();
        response =
          attempt.write && this.#streamingFetch
            ? await this.#streamingFetch(this.url(attempt.path), {
                method: attempt.method,
                headers,
                body: attempt.write,
                signal: attempt.signal,
              })
            : await this.#fetch(this.url(attempt.path), {
                method: attempt.method,
                headers,
                body,
                signal: attempt.signal,
                redirect: 'manual',
                // fetch needs `duplex` for a streamed request body (the Fetch standard's name).
                ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
              } as RequestInit);
        this.#noteRateLimit(response);
        if (response.ok || attempt.accept?.(response.status)) return response;
        failure = await errorFromResponse(response);
      } catch (error) {
        if (attempt.signal?.aborted) throw networkError(attempt.signal.reason ?? error);
        failure = error instanceof QuireError ? error : networkError(error);
      }
      const delay = this.#delay(retry, response);
      const mayRetry =
        (failure.status === 0 || retryableStatus(failure.status, String(failure.code))) &&
        !attempt.giveUpOn?.includes(String(failure.code)) &&
        !attempt.isFinal?.(failure) &&
        (attempt.body === undefined || attempt.replayable !== false) &&
        retry < this.retry.maxRetries &&
        Date.now() + delay - started <= this.retry.budgetMs;
      if (!mayRetry) throw failure;
      await sleep(delay, attempt.signal);
    }
  }

  /** `Retry-After` when the server gave one, else full-jitter exponential back-off. */
  #delay(retry: number, response: Response | undefined): number {
    const after = response?.headers.get('retry-after');
    if (after) {
      const seconds = Number(after);
      const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
      // A little jitter on top, so clients told the same second do not all come back at once.
      if (ms >= 0) return Math.min(ms + Math.random() * 250, this.retry.maxDelayMs);
    }
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** retry);
    return Math.random() * ceiling;
  }

  #noteRateLimit(response: Response): void {
    const rateLimit = response.headers.get('ratelimit');
    const policy = response.headers.get('ratelimit-policy');
    if (rateLimit === null && policy === null) return;
    this.rateLimit = {
      remaining: param(rateLimit, 'r'),
      resetSeconds: param(rateLimit, 't'),
      limit: param(policy, 'q'),
      windowSeconds: param(policy, 'w'),
      raw: { rateLimit, policy },
    };
  }
}
