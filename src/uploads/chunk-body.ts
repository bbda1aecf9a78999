// How a tus chunk's body reaches the data store: piped from the Node request itself, not through the
// Web Request @tus/server handles. Its writeToStore (2.4.5) turns a Web body back into a Node stream
// (Readable.fromWeb, a PassThrough, a limiter), and the route could only make that body with
// Readable.toWeb, whose queue on Node 20 counts chunks, not bytes: 16,384 of them may wait there, so
// a disk slower than the socket held up to a whole 64 MiB chunk in memory, and every 64 KiB socket
// read paid two stream conversions and a promise (docs/benchmarks.md, `uploads`). What writeToStore
// promises is kept: the body stops at the size tus computed, and a cancelled request (lock drain) or
// a cut connection ends the write with the bytes that arrived.
import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import type { Server } from '@tus/server';
import { type CancellationContext, ERRORS, type Upload } from '@tus/utils';
import { tusContext } from './request-context.js';

type WriteToStore = (
  webBody: unknown,
  upload: Upload,
  maxBytes: number,
  context: CancellationContext,
) => Promise<number>;

/** Makes the tus server's POST (creation with upload) and PATCH read bodies from `tusContext().body`. */
export function writeChunksFromNodeRequest(server: Server): void {
  for (const handler of [server.handlers.POST, server.handlers.PATCH]) {
    const writeToStore: WriteToStore = async (_webBody, upload, maxBytes, context) => {
      if (context.signal.aborted) throw ERRORS.ABORTED;
      const { body } = tusContext();
      if (!body) throw new Error('tus chunk without its request body in the context');
      const chunk = new ChunkBody(body, maxBytes, context.signal);
      try {
        return await handler.store.write(chunk, upload.id, upload.offset);
      } catch (error) {
        // The store reports a failed read as its own write error; over the limit is the client's 413.
        throw chunk.exceeded ? ERRORS.ERR_MAX_SIZE_EXCEEDED : error;
      } finally {
        chunk.detach();
      }
    };
    // The one seam replaced; a version of @tus/server without it writes no byte, which every
    // upload test would show.
    Object.assign(handler, { writeToStore });
  }
}

/**
 * The request's body up to `maxBytes`: it ends where the request ends, or early, keeping what it
 * passed on, when the request is cancelled or its connection is cut.
 */
class ChunkBody extends Transform {
  exceeded = false;
  private received = 0;
  private readonly stop = () => {
    this.body.unpipe(this);
    if (!this.writableEnded && !this.destroyed) this.end();
  };

  constructor(
    private readonly body: IncomingMessage,
    private readonly maxBytes: number,
    private readonly signal: AbortSignal,
  ) {
    super();
    signal.addEventListener('abort', this.stop, { once: true });
    // A cut connection errors the request (pipe does not pass that on) or closes it before its end.
    body.on('error', this.stop);
    body.once('close', this.stop);
    // An over-long body errors this stream, maybe before the store has begun to read it (it opens
    // its file first): the store sees the error when it reads, and writeToStore answers 413.
    this.on('error', () => undefined);
    body.pipe(this);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.received += chunk.length;
    if (this.received <= this.maxBytes) {
      done(null, chunk);
      return;
    }
    this.exceeded = true;
    done(new Error('the chunk is longer than tus allows'));
  }

  detach(): void {
    this.signal.removeEventListener('abort', this.stop);
    this.body.off('error', this.stop);
    this.body.off('close', this.stop);
    this.body.unpipe(this);
  }
}
