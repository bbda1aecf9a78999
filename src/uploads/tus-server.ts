// The @tus/server instance behind /api/v1/uploads: its data store, its locker, and the hooks that
// tie each upload to one account, enforce the plan's file limit and keep the uploads' rows.
import { MemoryLocker, Server } from '@tus/server';
import { ERRORS, type Locker } from '@tus/utils';
import { ulid } from 'ulid';
import type { UploadStore } from '../store/upload-types.js';
import { writeChunksFromNodeRequest } from './chunk-body.js';
import type { UploadBytes } from './data-stores.js';
import { DatabaseLocker } from './locker.js';
import { tusContext } from './request-context.js';
import type { QuireTusStore } from './tus-store.js';

export const UPLOADS_PATH = '/api/v1/uploads';
const UPLOAD_ID = /^upl_[0-9A-HJKMNP-TV-Z]{26}$/;

export function isUploadId(value: string): boolean {
  return UPLOAD_ID.test(value);
}

export function createTusServer(
  store: QuireTusStore,
  bytes: UploadBytes,
  rows: UploadStore,
  expiryMs: number,
  /** The public base URL's path: behind a proxy at /quire the upload URL is /quire/api/v1/uploads/…. */
  publicPath = '',
): Server {
  const locker: Locker = rows.tryLock ? new DatabaseLocker(rows.tryLock.bind(rows)) : new MemoryLocker();
  const publicId = (storeId: string) => storeId.slice(bytes.idPrefix.length);
  const server = new Server({
    path: UPLOADS_PATH,
    datastore: store,
    locker,
    // Upload URLs are public ids; the store's ids may carry the bucket's key prefix.
    namingFunction: () => `${bytes.idPrefix}upl_${ulid()}`,
    getFileIdFromRequest: (_req, lastPath) =>
      lastPath !== undefined && isUploadId(lastPath) ? `${bytes.idPrefix}${lastPath}` : undefined,
    generateUrl: (_req, { path, id }) => `${publicPath}${path}/${publicId(id)}`,
    // The route refuses a declared length over the limit first, as problem+json; this also bounds
    // what a PATCH may write.
    maxSize: () => tusContext().maxFileBytes,
    // Another account's upload (or one whose row the sweeper removed) does not exist for the caller.
    onIncomingRequest: async (req, storeId) => {
      if (req.method === 'POST' || req.method === 'OPTIONS') return;
      const row = await rows.get(tusContext().accountId, publicId(storeId));
      if (!row) throw ERRORS.FILE_NOT_FOUND;
    },
    onUploadCreate: async (_req, upload) => {
      const now = Date.now();
      await rows.create({
        id: publicId(upload.id),
        accountId: tusContext().accountId,
        length: upload.size ?? 0,
        createdAt: now,
        expiresAt: now + expiryMs,
      });
      return {};
    },
    onUploadFinish: async (_req, upload) => {
      await rows.markFinished(publicId(upload.id));
      return {};
    },
  });
  writeChunksFromNodeRequest(server);
  return server;
}
