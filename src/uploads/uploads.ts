// Resumable uploads as the rest of Quire sees them: the tus server for the HTTP route, taking a
// finished upload as a job input (moved into the job's blob folder), and the sweep of expired ones.
import { mkdir } from 'node:fs/promises';
import type { Server } from '@tus/server';
import type { BlobStore } from '../blobs/types.js';
import type { Config } from '../config/config.js';
import { QuireError } from '../errors/quire-error.js';
import type { UploadMetrics } from '../observability/metrics.js';
import type { UploadRecord, UploadStore } from '../store/upload-types.js';
import { openUploadBytes } from './data-stores.js';
import { createTusServer } from './tus-server.js';
import { QuireTusStore } from './tus-store.js';

/** An upload taken as a job input: its row and the file name its client gave (tus metadata). */
export interface TakenUpload extends UploadRecord {
  filename?: string;
}

export interface Uploads {
  tus: Server;
  /**
   * Moves the account's finished upload to `blobKey` and forgets it. 404 for an unknown or another
   * account's id, 409 `upload_incomplete` for one still receiving bytes.
   */
  take(accountId: string, uploadId: string, blobKey: string, maxBytes: number): Promise<TakenUpload>;
  /** Deletes the bytes and rows of uploads past their expiry; returns how many. */
  sweepExpired(now?: number, limit?: number): Promise<number>;
}

export async function openUploads(
  config: Pick<Config, 'storageUrl' | 'dataDir' | 'tmpDir' | 'uploads' | 'http'>,
  rows: UploadStore,
  blobs: BlobStore,
  metrics: UploadMetrics,
): Promise<Uploads> {
  const bytes = await openUploadBytes(config.storageUrl, config.dataDir, config.uploads.expiryMs);
  await mkdir(config.tmpDir, { recursive: true, mode: 0o700 });
  const publicId = (storeId: string) => storeId.slice(bytes.idPrefix.length);
  const store = new QuireTusStore(bytes.store, rows, metrics, config.tmpDir, publicId);
  metrics.setActiveSource(() => rows.countUnfinished());
  const storeId = (id: string) => `${bytes.idPrefix}${id}`;

  return {
    tus: createTusServer(store, bytes, rows, config.uploads.expiryMs, publicPath(config.http.publicBaseUrl)),
    async take(accountId, uploadId, blobKey, maxBytes) {
      const row = await rows.get(accountId, uploadId);
      if (!row) throw new QuireError('not_found', `No upload with id ${uploadId}.`);
      // Past its expiry an upload is gone for every use, whether or not the sweep has come by yet.
      if (row.expiresAt <= Date.now())
        throw new QuireError('upload_expired', `The upload ${uploadId} expired.`, {
          extras: { upload_id: uploadId },
        });
      if (row.finishedAt === undefined)
        throw new QuireError('upload_incomplete', 'The upload has not received all its bytes.', {
          extras: { upload_id: uploadId },
        });
      if (row.length > maxBytes) throw tooLarge(maxBytes);
      // One statement decides which request gets the upload when two name it at once.
      const taken = await rows.take(accountId, uploadId);
      if (!taken) throw new QuireError('not_found', `No upload with id ${uploadId}.`);
      let filename: string | null | undefined;
      try {
        filename = (await store.getUpload(storeId(uploadId))).metadata?.filename;
        await bytes.moveToBlob(storeId(uploadId), blobKey, blobs);
      } catch (error) {
        // The row comes back so that the sweeper still finds the bytes at its expiry.
        await rows.create(taken).catch(() => undefined);
        throw error;
      }
      await store.remove(storeId(uploadId));
      return filename ? { ...taken, filename } : taken;
    },
    async sweepExpired(now = Date.now(), limit = 100) {
      const expired = await rows.expired(now, limit);
      for (const upload of expired) {
        // Already gone from the store (terminated mid-sweep, or a crash after the bytes went): the
        // row still goes.
        await store.remove(storeId(upload.id)).catch(() => rows.remove(upload.id));
      }
      metrics.expired.inc(expired.length);
      return expired.length;
    },
  };
}

function tooLarge(maxBytes: number): QuireError {
  return new QuireError('payload_too_large', `The upload is larger than ${maxBytes} bytes.`, {
    extras: { limit_bytes: maxBytes },
  });
}

/** The path of QUIRE_PUBLIC_BASE_URL (`/quire` for https://example.com/quire), '' without one. */
function publicPath(publicBaseUrl: string): string {
  return publicBaseUrl ? new URL(publicBaseUrl).pathname.replace(/\/+$/, '') : '';
}
