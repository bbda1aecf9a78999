// The data store the tus server writes through: Quire's file or S3 store underneath, plus what
// @tus/server 2.4.5 lacks — the checksum extension (a chunk whose SHA-256 does not match is spooled
// aside and never reaches the upload) — and the bookkeeping of the uploads' rows and metrics.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DataStore, type Upload } from '@tus/utils';
import type { UploadMetrics } from '../observability/metrics.js';
import type { UploadStore } from '../store/upload-types.js';
import { tusContext } from './request-context.js';

/** The checksum extension's status for a body whose digest differs (tus 1.0 "Checksum"). */
export const CHECKSUM_MISMATCH = { status_code: 460, body: 'Checksum Mismatch\n' };

export class QuireTusStore extends DataStore {
  constructor(
    readonly inner: DataStore,
    private readonly rows: UploadStore,
    private readonly metrics: UploadMetrics,
    /** Where a checksummed chunk waits until its digest is known. */
    private readonly spoolDir: string,
    /** Turns a store id back into the public upload id (the S3 store's ids carry the key prefix). */
    private readonly publicId: (storeId: string) => string,
  ) {
    super();
    // A deferred length would let an upload start before the plan limit can be checked.
    this.extensions = [...inner.extensions.filter((e) => e !== 'creation-defer-length'), 'checksum'];
  }

  override create(file: Upload): Promise<Upload> {
    return this.inner.create(file);
  }

  override getUpload(id: string): Promise<Upload> {
    return this.inner.getUpload(id);
  }

  override declareUploadLength(id: string, length: number): Promise<void> {
    return this.inner.declareUploadLength(id, length);
  }

  override getExpiration(): number {
    return this.inner.getExpiration();
  }

  /** Expiry is the sweeper's, driven by the uploads' rows (src/uploads/uploads.ts). */
  override async deleteExpired(): Promise<number> {
    return 0;
  }

  /** Termination, expiry and consumption all end here: the row goes with the bytes. */
  override async remove(id: string): Promise<void> {
    try {
      await this.inner.remove(id);
    } finally {
      await this.rows.remove(this.publicId(id));
    }
  }

  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    const expected = tusContext().sha256;
    const written =
      expected === undefined
        ? await this.inner.write(stream, id, offset)
        : await this.writeVerified(stream, id, offset, expected);
    this.metrics.bytesReceived.inc(written - offset);
    return written;
  }

  /**
   * A cut connection ends the body early; its digest then differs too, so a partial checksummed
   * chunk is discarded like a corrupt one and the client resends it whole.
   */
  private async writeVerified(stream: Readable, id: string, offset: number, expected: string) {
    const spool = path.join(this.spoolDir, `.chunk-${randomUUID()}`);
    try {
      const hash = createHash('sha256');
      await pipeline(
        stream,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            hash.update(chunk);
            yield chunk;
          }
        },
        createWriteStream(spool, { mode: 0o600 }),
      );
      if (hash.digest('base64') !== expected) throw CHECKSUM_MISMATCH;
      return await this.inner.write(createReadStream(spool), id, offset);
    } finally {
      await unlink(spool).catch(() => undefined);
    }
  }
}
