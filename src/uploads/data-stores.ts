// The tus data store under Quire's storage: @tus/file-store in the data dir for the embedded default,
// @tus/s3-store in the same bucket as the blobs, with the blob store's client settings, when
// QUIRE_STORAGE_URL is S3 (loaded lazily, like the blob store's SDK). Each knows how to hand a
// finished upload over to the blob store by moving it.
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { type DataStore, ERRORS, type KvStore } from '@tus/utils';
import { fill } from '../blobs/local-write.js';
import type { BlobStore } from '../blobs/types.js';
import { parseS3Url } from '../config/storage-url.js';

/** A tus store and the one operation Quire adds: give a finished upload to the blob store. */
export interface UploadBytes {
  store: DataStore;
  /** Store ids carry this before the public upload id (the S3 key prefix); '' on disk. */
  idPrefix: string;
  /** Moves (renames, links or copies server-side) the upload's bytes to `blobKey`. */
  moveToBlob(storeId: string, blobKey: string, blobs: BlobStore): Promise<void>;
  /** Up to `bytes` of the upload's start, for sniffing its type before it is taken. */
  head(storeId: string, bytes: number): Promise<Buffer>;
}

/** tus chunks of 5 MiB fill one S3 part each: S3 refuses smaller parts but the last. */
const S3_PART_BYTES = 5 * 1024 * 1024;
/** CopyObject's ceiling; larger uploads are streamed into the blob store instead. */
const S3_COPY_MAX_BYTES = 5 * 1024 * 1024 * 1024;

export async function openUploadBytes(
  storageUrl: string,
  dataDir: string,
  expiryMs: number,
): Promise<UploadBytes> {
  if (storageUrl.startsWith('s3://')) return openS3(storageUrl, expiryMs);
  const { FileStore } = await import('@tus/file-store');
  const directory = path.join(dataDir, 'uploads');

  /**
   * @tus/file-store writes a chunk through a Transform and a WriteStream, one file-system call per
   * 64 KiB socket chunk; this appends it the way the blob store writes a multipart file (`fill`:
   * what arrives during a write goes in the next writev, up to 1 MiB). Appending is writing at the
   * offset: the store's offset is the file's size, checked by the PATCH handler under the lock.
   */
  class AppendingFileStore extends FileStore {
    override async write(readable: Readable, id: string, offset: number): Promise<number> {
      const file = await open(path.join(directory, id), 'a');
      try {
        return offset + (await fill(file.fd, readable, undefined));
      } catch {
        // As @tus/file-store answers any failed write; the bytes appended so far stay.
        throw ERRORS.FILE_WRITE_ERROR;
      } finally {
        await file.close();
      }
    }
  }

  const store = new AppendingFileStore({ directory, expirationPeriodInMilliseconds: expiryMs });
  return {
    store,
    idPrefix: '',
    // A hard link where the blob store is on the same disk (the default: both under the data dir);
    // the upload's own name then goes with remove(), so nothing is copied.
    moveToBlob: async (storeId, blobKey, blobs) => {
      await blobs.upload(blobKey, path.join(directory, storeId));
    },
    head: async (storeId, bytes) => {
      const file = await open(path.join(directory, storeId), 'r');
      try {
        const { buffer, bytesRead } = await file.read(Buffer.alloc(bytes), 0, bytes, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await file.close();
      }
    },
  };
}

/**
 * Every process reads an upload's state from the bucket: @tus/s3-store's default in-memory cache
 * would let one API process act on what another has since changed.
 */
class NoCache<T> implements KvStore<T> {
  async get(): Promise<T | undefined> {
    return undefined;
  }
  async set(): Promise<void> {}
  async delete(): Promise<void> {}
  async list(): Promise<string[]> {
    return [];
  }
}

async function openS3(storageUrl: string, expiryMs: number): Promise<UploadBytes> {
  const location = parseS3Url(storageUrl);
  const { S3Store } = await import('@tus/s3-store');
  const { s3ClientOptions } = await import('../blobs/s3.js');
  const keyPrefix = location.prefix === '' ? '' : `${location.prefix}/`;

  class MovableS3Store extends S3Store {
    /** @tus/s3-store 2.0.7 leaves an unfinished upload's trailing `.part` object behind on remove. */
    override async remove(id: string): Promise<void> {
      try {
        await super.remove(id);
      } finally {
        await this.deleteIncompletePart(id).catch(() => undefined);
      }
    }

    async moveToBlob(storeId: string, blobKey: string, blobs: BlobStore): Promise<void> {
      const { size } = await this.getUpload(storeId);
      if ((size ?? 0) > S3_COPY_MAX_BYTES) {
        await blobs.put(blobKey, await this.read(storeId));
        return;
      }
      // Server-side: the bytes never pass through this process.
      await this.client.copyObject({
        Bucket: this.bucket,
        CopySource: `${this.bucket}/${storeId}`,
        Key: `${keyPrefix}${blobKey}`,
      });
    }
  }

  const store = new MovableS3Store({
    partSize: S3_PART_BYTES,
    // Expiry is Quire's sweeper's (rows in the database), not bucket lifecycle tags, which
    // S3-compatible servers do not all support.
    useTags: false,
    cache: new NoCache(),
    expirationPeriodInMilliseconds: expiryMs,
    s3ClientConfig: { bucket: location.bucket, ...s3ClientOptions(location) },
  });
  return {
    store,
    idPrefix: `${keyPrefix}uploads/`,
    moveToBlob: (storeId, blobKey, blobs) => store.moveToBlob(storeId, blobKey, blobs),
    head: async (storeId, bytes) => firstBytes(await store.read(storeId), bytes),
  };
}

/** The first `bytes` of a stream, which is then closed: an upload's head without reading it all. */
async function firstBytes(stream: Readable, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length >= bytes) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, bytes);
}
