// Blob store interface: streamed put/get with ranges, delete, and a temporary download link.
// Local disk and S3 implement it and run the same conformance suite.
import type { Readable } from 'node:stream';

export interface BlobInfo {
  size: number;
  /** Strong validator for the download's ETag. */
  etag: string;
}

export interface ByteRange {
  /** Inclusive first byte. */
  start: number;
  /** Inclusive last byte. */
  end: number;
}

/** What `put` reads: a Readable, or a generator that passes another stream's bytes on. */
export type PutBody = Readable | AsyncIterable<Buffer>;

export interface PutOptions {
  /**
   * Whether to compute the SHA-256 of the bytes (default true). It costs about 0.5 ms of CPU per MB
   * on the event loop, so a caller that will not look at it (a job request without an
   * Idempotency-Key, whose fingerprint is the only use) says false.
   */
  sha256?: boolean;
}

export interface StoredBlob {
  size: number;
  /** Hex SHA-256 of the bytes, unless the put was asked not to compute it. */
  sha256?: string;
}

export interface TemporaryUrlOptions {
  expiresAt: number; // epoch ms
  /** Download file name for Content-Disposition. */
  filename: string;
  contentType: string;
}

/**
 * Keys are relative paths of [A-Za-z0-9._-] segments, each starting with a letter or digit (see
 * keys.ts); every operation rejects any other key with InvalidBlobKeyError.
 */
export interface BlobStore {
  /**
   * Streams `body` (a stream or any async iterable of bytes) into `key`; the object appears whole or
   * not at all. Returns its size and SHA-256. A failure of the body rejects the put.
   */
  put(key: string, body: PutBody, options?: PutOptions): Promise<StoredBlob>;
  /** Rejects with BlobNotFoundError (keys.ts) when the object does not exist. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  stat(key: string): Promise<BlobInfo | undefined>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Deletes every object under `prefix/` (`prefix` is a valid key naming a folder, e.g.
   * `jobs/<id>`): a job's inputs, its result and whatever an attempt that lost its lease left.
   */
  deletePrefix(prefix: string): Promise<void>;
  /** Stores a finished local file (a hard link where the store is on the same disk, else a copy). */
  upload(key: string, source: string): Promise<{ size: number }>;
  /**
   * Copies the object to a local file, replacing it (a hard link where the store is on the same disk,
   * so treat the file as read-only). Rejects with BlobNotFoundError when the object does not exist.
   */
  download(key: string, destination: string): Promise<void>;
  /** A link that needs no API key: an S3 presigned URL or `/api/v1/files/{token}` for local disk. */
  temporaryUrl(key: string, options: TemporaryUrlOptions): Promise<string>;
  ping(): Promise<void>;
}
