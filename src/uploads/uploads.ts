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

/** An upload a job request names, checked while the request is read and taken when the job commits. */
export interface UploadTake {
  uploadId: string;
  /** Where the bytes go: the job's input. */
  blobKey: string;
}

export interface Uploads {
  tus: Server;
  /**
   * The account's finished upload as it stands, with up to `headBytes` of its start (for sniffing),
   * without taking it: a request refused later leaves it usable. 404 for an unknown or another
   * account's id, 410 `upload_expired` past its expiry, 409 `upload_incomplete` for one still
   * receiving bytes, 413 over `maxBytes`.
   */
  check(
    accountId: string,
    uploadId: string,
    maxBytes: number,
    headBytes: number,
  ): Promise<TakenUpload & { head: Buffer }>;
  /**
   * Takes every named upload for a job that is about to be stored: all their rows in turn (each in
   * one statement, which decides between two requests naming it at once; a 404 gives back the ones
   * already taken), then their bytes moved into place and the uploads forgotten.
   */
  take(accountId: string, takes: readonly UploadTake[]): Promise<void>;
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
    async check(accountId, uploadId, maxBytes, headBytes) {
      const row = await rows.get(accountId, uploadId);
      if (!row) throw notFound(uploadId);
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
      const filename = (await store.getUpload(storeId(uploadId))).metadata?.filename;
      const head = row.length > 0 ? await bytes.head(storeId(uploadId), headBytes) : Buffer.alloc(0);
      return { ...row, ...(filename ? { filename } : {}), head };
    },
    async take(accountId, takes) {
      const taken: UploadRecord[] = [];
      for (const { uploadId } of takes) {
        const row = await rows.take(accountId, uploadId);
        if (!row) {
          // Taken meanwhile by another request (or named twice): the others stay usable.
          await Promise.allSettled(taken.map((t) => rows.create(t)));
          throw notFound(uploadId);
        }
        taken.push(row);
      }
      for (const [index, { uploadId, blobKey }] of takes.entries()) {
        try {
          await bytes.moveToBlob(storeId(uploadId), blobKey, blobs);
        } catch (error) {
          // The rows not moved come back so that the sweeper still finds the bytes at their expiry.
          await Promise.allSettled(taken.slice(index).map((t) => rows.create(t)));
          throw error;
        }
        await store.remove(storeId(uploadId));
      }
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

function notFound(uploadId: string): QuireError {
  return new QuireError('not_found', `No upload with id ${uploadId}.`);
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
