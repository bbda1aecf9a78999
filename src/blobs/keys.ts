// Blob keys and blob errors shared by every blob store: one key validation, so that no key, however
// it was built, can name a path outside the store's root (local disk) or an unexpected object (S3).
import { isObjectPath } from '../config/storage-url.js';

export class InvalidBlobKeyError extends Error {
  override name = 'InvalidBlobKeyError';
}

/** Throws InvalidBlobKeyError unless `key` is a safe relative object key. */
export function assertValidKey(key: string): void {
  if (!isObjectPath(key)) {
    throw new InvalidBlobKeyError(`Invalid blob key ${JSON.stringify(String(key).slice(0, 80))}`);
  }
}

/** A missing object on get/download (stat answers undefined instead). */
export class BlobNotFoundError extends Error {
  override name = 'BlobNotFoundError';
  constructor(readonly key: string) {
    super(`No blob at ${key}`);
  }
}

export function isBlobNotFound(error: unknown): error is BlobNotFoundError {
  return error instanceof BlobNotFoundError;
}

/** Every blob of one job lives under this folder, so the job's end can delete it as a whole. */
export function jobFolder(jobId: string): string {
  return `jobs/${jobId}`;
}
