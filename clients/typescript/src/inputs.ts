// What a job's input may be, and how each becomes a multipart part without being read whole: a path
// is streamed from disk, Node and Web streams are piped, Blobs stream themselves, URLs become `file_url`.
import { openAsBlob } from 'node:fs';
import path from 'node:path';

/** A fetched input: the worker GETs it (with `headers`, kept secret by the server). */
export interface UrlInput {
  url: string | URL;
  headers?: Record<string, string>;
}

/**
 * One input of a job. A string is a file path (Node), a `URL` a `file_url` the server fetches,
 * `{ uploadId }` a finished tus upload; the rest are bytes. `{ data, name }` names the bytes.
 */
export type InputSource =
  | string
  | URL
  | Blob
  | Uint8Array
  | ReadableStream<Uint8Array>
  | NodeJS.ReadableStream
  | UrlInput
  | { uploadId: string }
  | { path: string; name?: string }
  | {
      data: Blob | Uint8Array | ReadableStream<Uint8Array> | NodeJS.ReadableStream;
      name?: string;
      type?: string;
    };

/** A file part: the size when known (NaN for a stream), and a fresh stream on every call. */
export interface FilePart {
  kind: 'file';
  name: string;
  type: string;
  size: number;
  /** Whether `stream()` can be called again (a retry resends the body). */
  replayable: boolean;
  stream(): ReadableStream<Uint8Array>;
  /** The path on disk, when there is one (large files go through tus from it). */
  path?: string;
}

export type Part = FilePart | { kind: 'file_url'; value: string } | { kind: 'upload_id'; value: string };

function isNodeStream(value: unknown): value is NodeJS.ReadableStream {
  return (
    value !== null && typeof value === 'object' && typeof (value as { pipe?: unknown }).pipe === 'function'
  );
}

function oneShot(stream: ReadableStream<Uint8Array>): () => ReadableStream<Uint8Array> {
  let used = false;
  return () => {
    if (used) throw new Error('a stream input can be sent only once');
    used = true;
    return stream;
  };
}

function bytesPart(
  data: Blob | Uint8Array | ReadableStream<Uint8Array> | NodeJS.ReadableStream,
  name: string,
  type: string,
): FilePart {
  if (data instanceof Blob) {
    const fileName = typeof File !== 'undefined' && data instanceof File ? data.name : name;
    return {
      kind: 'file',
      name: fileName,
      type: data.type || type,
      size: data.size,
      replayable: true,
      stream: () => data.stream(),
    };
  }
  if (data instanceof Uint8Array) {
    const blob = new Blob([data as Uint8Array<ArrayBuffer>]);
    return { kind: 'file', name, type, size: data.byteLength, replayable: true, stream: () => blob.stream() };
  }
  const web = isNodeStream(data) ? pulled(data as AsyncIterable<Uint8Array>) : data;
  return { kind: 'file', name, type, size: Number.NaN, replayable: false, stream: oneShot(web) };
}

/**
 * A Web stream that reads the Node stream only when pulled. Not `Readable.toWeb`: on Node 20 it keeps
 * reading ahead regardless of the consumer, so a 1 GiB file ends up in memory.
 */
function pulled(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

async function pathPart(file: string, name?: string): Promise<FilePart> {
  // A file-backed Blob: its stream reads the file from disk as it is consumed, never all at once.
  const blob = await openAsBlob(file);
  return {
    kind: 'file',
    name: name ?? path.basename(file),
    type: 'application/octet-stream',
    size: blob.size,
    replayable: true,
    path: file,
    stream: () => blob.stream(),
  };
}

/** Turns each input into its part; `index` names unnamed bytes `input-1`, `input-2`, …. */
export async function toPart(input: InputSource, index: number): Promise<Part> {
  const fallback = `input-${index + 1}`;
  const octets = 'application/octet-stream';
  if (typeof input === 'string') return pathPart(input);
  if (input instanceof URL) return { kind: 'file_url', value: input.toString() };
  if (
    input instanceof Blob ||
    input instanceof Uint8Array ||
    input instanceof ReadableStream ||
    isNodeStream(input)
  )
    return bytesPart(input, fallback, octets);
  if ('uploadId' in input) return { kind: 'upload_id', value: input.uploadId };
  if ('path' in input) return pathPart(input.path, input.name);
  if ('url' in input) {
    const value = input.headers
      ? JSON.stringify({ url: input.url.toString(), headers: input.headers })
      : input.url.toString();
    return { kind: 'file_url', value };
  }
  return bytesPart(input.data, input.name ?? fallback, input.type ?? octets);
}
