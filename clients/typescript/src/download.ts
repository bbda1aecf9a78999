// Downloads through the temporary link (docs/api.md §2): asked for as JSON, fetched without the key,
// streamed to a file or a writable, resumed with `Range` + `If-Range` after a broken connection, and
// checked against the length the link announced.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { errorFromResponse, networkError, QuireError } from './errors.js';
import { type LinkResponse, nodeGet } from './node-http.js';
import type { Transport } from './transport.js';

export interface DownloadOptions {
  /** A file path, a Node writable or a Web WritableStream. */
  to: string | NodeJS.WritableStream | WritableStream<Uint8Array>;
  signal?: AbortSignal;
  /** Bytes received so far and the total (when the server said). */
  onProgress?: (received: number, total: number | undefined) => void;
  /** How many broken connections to resume after (default 5). */
  maxResumes?: number;
}

export interface DownloadResult {
  bytes: number;
  contentType: string | null;
  /** The file name from `Content-Disposition`, when sent. */
  name: string | undefined;
}

export function fileName(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star?.[1]) return decodeURIComponent(star[1]);
  return /filename="([^"]*)"/i.exec(disposition)?.[1];
}

/** The Node writable that receives the bytes (a path opened once; resumes append to it). */
export function sinkOf(to: DownloadOptions['to']): {
  sink: NodeJS.WritableStream;
  close: () => Promise<void>;
} {
  if (typeof to === 'string') {
    const file = createWriteStream(to);
    return {
      sink: file,
      close: () =>
        new Promise((resolve, reject) => file.end((e?: Error | null) => (e ? reject(e) : resolve()))),
    };
  }
  if (to instanceof WritableStream) {
    const sink = Writable.fromWeb(to);
    return { sink, close: () => new Promise((resolve) => sink.end(resolve)) };
  }
  return { sink: to, close: async () => {} };
}

/**
 * Copies `chunks` into `sink` without ending it, honouring back-pressure. Not `pipeline`: on a broken
 * connection it would destroy the sink, and a resume keeps writing to the same one.
 */
export async function copy(
  chunks: AsyncIterable<Uint8Array>,
  sink: NodeJS.WritableStream,
  onChunk: (n: number) => void,
): Promise<void> {
  for await (const chunk of chunks) {
    onChunk(chunk.byteLength);
    if (!sink.write(chunk)) await once(sink, 'drain');
  }
}

/** The link's answer: node:http on Node (node-http.ts says why), fetch elsewhere. */
export async function openLink(
  url: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<LinkResponse> {
  if (typeof process !== 'undefined' && process.versions?.node) return nodeGet(url, headers, signal);
  const response = await fetch(url, { headers, ...(signal ? { signal } : {}) });
  const body = response.body;
  const chunks: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      if (!body) return;
      const reader = body.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value;
    },
  };
  return { status: response.status, headers: response.headers, chunks, discard: () => void body?.cancel() };
}

/** Asks `linkPath` (a `/download` route) for a fresh temporary link. */
export async function freshLink(
  transport: Transport,
  linkPath: string,
  signal?: AbortSignal,
): Promise<string> {
  const response = await transport.send({
    method: 'GET',
    path: linkPath,
    headers: { Accept: 'application/json' },
    signal,
  });
  const { url } = (await response.json()) as { url: string };
  return transport.url(url);
}

export async function downloadLink(
  transport: Transport,
  linkPath: string,
  options: DownloadOptions,
): Promise<DownloadResult> {
  const { sink, close } = sinkOf(options.to);
  let received = 0;
  let total: number | undefined;
  let etag: string | null = null;
  let result: Omit<DownloadResult, 'bytes'> | undefined;
  let url = await freshLink(transport, linkPath, options.signal);
  for (let resumes = 0; ; ) {
    try {
      const headers: Record<string, string> =
        received > 0 ? { Range: `bytes=${received}-`, ...(etag ? { 'If-Range': etag } : {}) } : {};
      const response = await openLink(url, headers, options.signal);
      if (response.status === 403 && resumes < (options.maxResumes ?? 5)) {
        // The link expired while resuming: a new one, then the same range.
        response.discard();
        url = await freshLink(transport, linkPath, options.signal);
        resumes++;
        continue;
      }
      if (response.status < 200 || response.status > 299) {
        const text: Buffer[] = [];
        for await (const chunk of response.chunks) text.push(Buffer.from(chunk));
        throw await errorFromResponse(
          new Response(Buffer.concat(text), { status: response.status, headers: response.headers }),
        );
      }
      if (received > 0 && response.status !== 206)
        throw new QuireError({
          status: response.status,
          code: 'length_mismatch',
          title: 'Resume refused',
          detail:
            'The server sent the whole file again instead of the rest; the part already written cannot be kept.',
          retryable: true,
        });
      const length = Number(response.headers.get('content-length') ?? Number.NaN);
      if (received === 0) {
        total = Number.isFinite(length) ? length : undefined;
        etag = response.headers.get('etag');
        result = {
          contentType: response.headers.get('content-type'),
          name: fileName(response.headers.get('content-disposition')),
        };
      }
      await copy(response.chunks, sink, (n) => {
        received += n;
        options.onProgress?.(received, total);
      });
      if (total !== undefined && received !== total)
        throw networkError(new Error(`the connection ended at ${received} of ${total} bytes`));
      await close();
      return { bytes: received, contentType: result?.contentType ?? null, name: result?.name };
    } catch (error) {
      const broken = !(error instanceof QuireError) || error.status === 0 || error.status >= 500;
      if (options.signal?.aborted || !broken || resumes >= (options.maxResumes ?? 5)) {
        if (typeof options.to === 'string') await close().catch(() => {});
        throw error instanceof QuireError ? error : networkError(error);
      }
      resumes++;
    }
  }
}
