// Node's own HTTP client for the two transfers where fetch misbehaves on Node 20: streamed request
// bodies (undici reads a ReadableStream body ahead of the socket, so a 1 GiB upload ended up whole in
// memory, measured by test/clients/sdk-ts/large-files.test.ts) and long downloads (same for bodies).
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import type { BodySink, BodyWriter } from './transport.js';

/** Statuses whose Response may not have a body (Fetch standard "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export async function streamingFetch(
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    /** Puts the body into the request itself (multipart.ts `writeTo`). */
    body: BodyWriter;
    signal?: AbortSignal | undefined;
  },
): Promise<Response> {
  const target = new URL(url);
  const request = (target.protocol === 'https:' ? https : http).request(target, {
    method: init.method,
    headers: init.headers,
    ...(init.signal ? { signal: init.signal } : {}),
  });
  const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  // The server may answer (413, 400) before reading the whole body: that answer wins over the
  // write error of the rest.
  const sent = init
    .body(requestSink(request))
    .then(
      () => new Promise<void>((resolve) => request.end(resolve)),
      (error: unknown) => {
        // The server must not wait for the rest of a body that will never come.
        request.destroy(error instanceof Error ? error : new Error(String(error)));
        throw error;
      },
    )
    .catch((error: unknown) => error);
  const response = await Promise.race([answered, sent.then(() => answered)]);
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const status = response.statusCode ?? 502;
  const body = NULL_BODY.has(status) ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>);
  if (body === null) response.resume();
  return new Response(body, { status, statusText: response.statusMessage ?? '', headers });
}

/**
 * The request as a BodySink: a write settles once the socket has taken the chunk (its callback), so
 * the writer may reuse the chunk's memory then; it fails if the request closes first (an early
 * answer, a cut connection, an abort), so no writer waits forever.
 */
function requestSink(request: http.ClientRequest): BodySink {
  return {
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        if (request.destroyed) {
          reject(new Error('the request ended before its body was sent'));
          return;
        }
        const onClose = () => reject(new Error('the request ended before its body was sent'));
        request.once('close', onClose);
        request.write(chunk, (error) => {
          request.off('close', onClose);
          if (error) reject(error);
          else resolve();
        });
      }),
  };
}

/** A GET whose body is read as a Node stream (its async iterator honours back-pressure). */
export interface LinkResponse {
  status: number;
  headers: Headers;
  chunks: AsyncIterable<Uint8Array>;
  discard(): void;
}

export function nodeGet(
  url: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<LinkResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).get(
      target,
      { headers, ...(signal ? { signal } : {}) },
      (response) => {
        const out = new Headers();
        for (const [name, value] of Object.entries(response.headers))
          if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve({
          status: response.statusCode ?? 502,
          headers: out,
          chunks: response,
          discard: () => response.resume(),
        });
      },
    );
    request.once('error', reject);
  });
}
