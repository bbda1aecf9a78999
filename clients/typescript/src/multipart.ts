// The job and batch request body: form-data-encoder frames the parts in order (text first, as
// docs/api.md §2 asks, so a bad tool or option is refused before any byte of a file). Two ways out:
// a Web stream for `fetch`, and on Node `writeTo`, which reads files on disk into a few reused
// buffers and reuses each only once the socket has taken it. Why: every fresh chunk (a file Blob's
// stream hands out a new one per read) is memory outside V8's heap, and a 1 GiB upload left tens of
// MiB of them waiting for a GC (test/clients/sdk-ts/large-files.test.ts measures the client's RSS).
import { open } from 'node:fs/promises';
import { FormDataEncoder, type FormDataLike } from 'form-data-encoder';
import type { FilePart, Part } from './inputs.js';
import type { BodySink } from './transport.js';

type Entry = [string, string | FileLike];

/** Bytes per read of a file on disk: a read and a socket write each cover many pages. */
const CHUNK_BYTES = 256 * 1024;
/** Buffers per file being sent: one being read while the others wait on the socket. */
const POOL_SIZE = 4;

/** The File shape form-data-encoder reads: it calls `stream()` once per encoding. */
class FileLike {
  readonly [Symbol.toStringTag] = 'File';
  readonly lastModified = 0;
  constructor(readonly part: FilePart) {}
  get name(): string {
    return this.part.name;
  }
  get type(): string {
    return this.part.type;
  }
  get size(): number {
    return this.part.size;
  }
  stream(): ReadableStream<Uint8Array> {
    return this.part.stream();
  }
}

/** The smallest FormData form-data-encoder accepts: entries in insertion order, nothing else. */
class Fields {
  readonly [Symbol.toStringTag] = 'FormData';
  readonly #entries: Entry[] = [];
  append(name: string, value: string | FileLike): void {
    this.#entries.push([name, value]);
  }
  getAll(name: string): Array<string | FileLike> {
    return this.#entries.filter(([n]) => n === name).map(([, v]) => v);
  }
  *entries(): Generator<Entry> {
    yield* this.#entries;
  }
  [Symbol.iterator](): Generator<Entry> {
    return this.entries();
  }
}

export interface MultipartBody {
  headers: Record<string, string>;
  /** Whether every file part can be read again, so a retry may resend the body. */
  replayable: boolean;
  /** A fresh body stream for one attempt. */
  body(): ReadableStream<Uint8Array>;
  /** Node: writes one attempt's whole body into `sink` (files on disk through reused buffers). */
  writeTo(sink: BodySink): Promise<void>;
}

/**
 * Sends the file at `file` through up to POOL_SIZE buffers: a buffer is read into again only once
 * the sink has taken its previous bytes, so memory stays flat whatever the file's size.
 */
async function writeFile(file: string, size: number, sink: BodySink): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const length = Math.max(1, Math.min(CHUNK_BYTES, size));
    const pool = Array.from({ length: Math.min(POOL_SIZE, Math.ceil(size / length) || 1) }, () =>
      Buffer.allocUnsafe(length),
    );
    const taken: Array<Promise<void>> = pool.map(() => Promise.resolve());
    let sent = 0;
    for (let turn = 0; ; turn = (turn + 1) % pool.length) {
      await taken[turn];
      const buffer = pool[turn]!;
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      sent += bytesRead;
      // Rejections surface from the Promise.all below (or the next wait for this buffer).
      const write = sink.write(buffer.subarray(0, bytesRead));
      write.catch(() => undefined);
      taken[turn] = write;
    }
    await Promise.all(taken);
    // Content-Length was promised from the size; a file that changed since would corrupt the body.
    if (sent !== size) throw new Error(`${file} changed size during the upload`);
  } finally {
    await handle.close();
  }
}

/** Any other file part (a Blob, bytes, a stream): its own chunks, one at a time. */
async function writeStream(stream: ReadableStream<Uint8Array>, sink: BodySink): Promise<void> {
  const reader = stream.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) await sink.write(next.value);
  } catch (error) {
    await reader.cancel(error).catch(() => undefined);
    throw error;
  }
}

/** `text` parts (already JSON-encoded where needed), then the inputs in order. */
export function multipartBody(text: Array<[string, string]>, parts: Part[]): MultipartBody {
  // One boundary for every attempt, so the headers computed once match each rebuilt body.
  const boundary = `quire${crypto.randomUUID().replaceAll('-', '')}`;
  const build = () => {
    const fields = new Fields();
    for (const [name, value] of text) fields.append(name, value);
    for (const part of parts) {
      if (part.kind === 'file') fields.append('file', new FileLike(part));
      else fields.append(part.kind, part.value);
    }
    return new FormDataEncoder(fields as unknown as FormDataLike, boundary);
  };
  const headers = { ...build().headers };
  return {
    headers,
    replayable: parts.every((p) => p.kind !== 'file' || p.replayable),
    body() {
      const iterator = build().encode();
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        async cancel() {
          await iterator.return?.(undefined);
        },
      });
    },
    async writeTo(sink) {
      // `values()` is the encoder's framing in order: each part's header, its value, the CRLF after
      // it, and the closing boundary; only the files' bytes are read here.
      for (const value of build().values()) {
        if (!(value instanceof FileLike)) await sink.write(value as Uint8Array);
        else if (value.part.path !== undefined) await writeFile(value.part.path, value.size, sink);
        else await writeStream(value.stream(), sink);
      }
    },
  };
}
