// A multipart/form-data request body (RFC 7578) streamed from files through two reused buffers, so an
// upload allocates nothing per chunk. Hand-written on purpose: no library body (fetch's FormData over
// openAsBlob, undici's, the form-data package over createReadStream) can reuse its chunk buffers,
// and every fresh chunk is external memory that buys the process a mark-compact GC about every
// 9 MB; docs/benchmarks.md "The bench client" has the numbers.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';

/** Big enough that a read and a socket write cover many pages; two per upload in flight. */
export const CHUNK_BYTES = 256 * 1024;

// Files are opened, sized and read synchronously: a 256 KiB read of a cached file takes tens of
// microseconds, less than the hand-off of an async read to libuv's thread pool and back, which
// doubled the client's CPU for the 9.1 MB upload (8.3 vs 4.3 ms). The price is that a read from a
// cold, slow disk blocks the event loop for its duration (docs/benchmarks.md "The bench client").

/** What the body is written into: node:http's ClientRequest fits. */
export interface BodySink {
  write(chunk: Buffer | string, callback: (error?: Error | null) => void): boolean;
}

export interface MultipartBody {
  contentType: string;
  contentLength: number;
  /** Writes the whole body (not `end`), reading each file through `buffers` (two of them). */
  writeTo(sink: BodySink, buffers: readonly [Buffer, Buffer]): Promise<void>;
}

/**
 * RFC 7578 §4.2 lets a filename be percent-encoded; this is the WHATWG form-data encoding of the
 * three bytes that would break the quoted header value.
 */
function quoted(name: string): string {
  return name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * Settles once the socket has taken `chunk`. A failed write is not rejected here: the request
 * reports it ('error'), and the caller's wait for the answer fails with it.
 */
function send(sink: BodySink, chunk: Buffer | string): Promise<void> {
  return new Promise((resolve) => {
    sink.write(chunk, () => resolve());
  });
}

/** Text `fields` first, then one `file` part per path, in order, as the API reads them. */
export function multipartBody(
  fields: Record<string, string>,
  fileField: string,
  files: readonly string[],
): MultipartBody {
  const boundary = `----quire-bench-${randomBytes(12).toString('hex')}`;
  let head = '';
  for (const [name, value] of Object.entries(fields))
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`;
  const parts = files.map((file) => ({
    file,
    size: statSync(file).size,
    header: Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(fileField)}"; ` +
        `filename="${quoted(path.basename(file))}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
  }));
  const tail = `--${boundary}--\r\n`;
  const contentLength =
    Buffer.byteLength(head) +
    parts.reduce((sum, p) => sum + p.header.length + p.size + 2, 0) +
    Buffer.byteLength(tail);

  async function writeTo(sink: BodySink, buffers: readonly [Buffer, Buffer]): Promise<void> {
    // A buffer is read into again only once the socket has taken its previous chunk (the write
    // callback), so at most two chunks are in flight and memory stays flat for any file size.
    const inFlight: [Promise<void>, Promise<void>] = [Promise.resolve(), Promise.resolve()];
    let turn = 0;
    // The framing is never written over, so only the file chunks' writes are waited for.
    void send(sink, head);
    for (const part of parts) {
      void send(sink, part.header);
      const fd = openSync(part.file, 'r');
      try {
        let sent = 0;
        for (;;) {
          await inFlight[turn];
          const buffer = buffers[turn]!;
          const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
          if (bytesRead === 0) break;
          sent += bytesRead;
          inFlight[turn] = send(sink, buffer.subarray(0, bytesRead));
          turn ^= 1;
        }
        // Content-Length was promised from stat; a file that changed since would corrupt the body.
        if (sent !== part.size) throw new Error(`${part.file} changed size during the upload`);
      } finally {
        closeSync(fd);
      }
      void send(sink, '\r\n');
    }
    await Promise.all(inFlight);
    await send(sink, tail);
  }

  return { contentType: `multipart/form-data; boundary=${boundary}`, contentLength, writeTo };
}
