// Blobs in an S3 bucket (AWS or any S3-compatible server) under one key prefix. Loaded only through
// openBlobStore's dynamic import, so the embedded local-disk default never loads the AWS SDK.
// Objects appear whole or not at all: S3 publishes an object only when its PUT or multipart upload
// completes, and a failed multipart upload is aborted.
import { createHash, randomUUID } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Location } from '../config/storage-url.js';
import { QuireError } from '../errors/quire-error.js';
import { attachmentDisposition } from './content-disposition.js';
import { assertValidKey, BlobNotFoundError } from './keys.js';
import type {
  BlobInfo,
  BlobStore,
  ByteRange,
  PutBody,
  PutOptions,
  StoredBlob,
  TemporaryUrlOptions,
} from './types.js';

/**
 * Multipart part size. S3 refuses parts under 5 MiB (but the last) and allows 10,000 parts, so 8 MiB
 * parts carry objects up to 78 GiB, far above QUIRE_UPLOAD_MAX_TOTAL_BYTES' ceiling. Bodies below it
 * go up as one PutObject.
 */
const PART_BYTES = 8 * 1024 * 1024;
/**
 * Parts in flight per put. lib-storage buffers each part it sends, so a put holds about
 * (QUEUE + 1) × PART_BYTES whatever the object's size: memory stays flat under large uploads.
 */
const QUEUE = 2;
/** Connecting to S3 takes milliseconds; ten seconds means the endpoint is down or unreachable. */
const CONNECT_TIMEOUT_MS = 10_000;
/** A socket silent this long mid-request is dead; generous, as a large multipart part may be slow. */
const IDLE_TIMEOUT_MS = 120_000;
/** SigV4 presigned URLs live at most 7 days (X-Amz-Expires ≤ 604800). */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/**
 * How every S3 client of Quire's is set up (the blob store's and the tus upload store's): one
 * bucket location, credentials from the SDK's default chain (env, shared files, instance/pod roles).
 */
export function s3ClientOptions(location: S3Location) {
  return {
    region: location.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    endpoint: location.endpoint,
    forcePathStyle: location.forcePathStyle,
    // Integrity checksums only when an operation requires them: many S3-compatible servers reject
    // or mishandle the SDK's default CRC32 trailers, and put() computes its own SHA-256 anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED' as const,
    responseChecksumValidation: 'WHEN_REQUIRED' as const,
    // The SDK waits forever by default; a hung endpoint must fail the request rather than hold an
    // upload or a worker slot indefinitely.
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, socketTimeout: IDLE_TIMEOUT_MS },
  };
}

export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;

  constructor(private readonly location: S3Location) {
    this.client = new S3Client(s3ClientOptions(location));
  }

  async put(key: string, given: PutBody, options: PutOptions = {}): Promise<StoredBlob> {
    const objectKey = this.objectKey(key);
    // A generator becomes a stream so it can be piped, watched for errors and destroyed alike.
    const body = given instanceof Readable ? given : Readable.from(given, { objectMode: false });
    const hash = options.sha256 === false ? undefined : createHash('sha256');
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash?.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    });
    // The source's own error is the meaningful one when it fails; the SDK's is a consequence of it.
    let sourceError: unknown;
    body.once('error', (error) => {
      sourceError = error;
    });
    // pipeline() forwards a failing source's error into `counted`, which makes the upload reject
    // (and abort its multipart upload) instead of waiting for bytes that never come.
    const piping = pipeline(body, counted).catch(() => undefined);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.location.bucket, Key: objectKey, Body: counted },
      partSize: PART_BYTES,
      queueSize: QUEUE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // Also unblocks the source when the upload failed first (network, credentials).
      counted.destroy();
      body.destroy();
      throw sourceError ?? error;
    }
    await piping;
    return hash ? { size, sha256: hash.digest('hex') } : { size };
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const objectKey = this.objectKey(key);
    if (
      range &&
      !(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && range.start >= 0)
    ) {
      throw new RangeError('Byte range bounds must be non-negative integers');
    }
    if (range && range.end < range.start) throw new RangeError('Byte range ends before it starts');
    try {
      const response = await this.client.send(
        new GetObjectCommand({
          Bucket: this.location.bucket,
          Key: objectKey,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      // In Node the SDK's body is an http.IncomingMessage, a Readable.
      return response.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFoundError(key);
      if (statusOf(error) === 416) throw new RangeError('Byte range lies outside the object');
      throw error;
    }
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const objectKey = this.objectKey(key);
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.location.bucket, Key: objectKey }),
      );
      // S3's ETag is quoted and changes with the content (MD5, or MD5-of-parts for multipart).
      return { size: head.ContentLength ?? 0, etag: head.ETag ?? '""' };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    // DeleteObject succeeds for a missing key, so this is idempotent without a HeadObject first.
    await this.client.send(
      new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }),
    );
  }

  async deletePrefix(prefix: string): Promise<void> {
    const Bucket = this.location.bucket;
    const Prefix = `${this.objectKey(prefix)}/`;
    // Each listed page (at most 1000 keys) is one DeleteObjects request; listing again from the
    // start finds what is left, so objects written meanwhile are not skipped.
    for (;;) {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket, Prefix }));
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length === 0) return;
      const done = await this.client.send(
        new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys, Quiet: true } }),
      );
      if (done.Errors && done.Errors.length > 0) {
        throw new Error(`S3 refused to delete ${done.Errors.length} object(s) under ${prefix}/`);
      }
      if (!page.IsTruncated) return;
    }
  }

  async upload(key: string, source: string): Promise<{ size: number }> {
    this.objectKey(key);
    // Opened first so a missing source rejects before any request is made.
    const handle = await open(source, 'r');
    const { size } = await this.put(key, handle.createReadStream());
    return { size };
  }

  async download(key: string, destination: string): Promise<void> {
    const body = await this.get(key);
    // Written beside the destination and renamed, so a broken transfer never leaves half a file
    // where the worker expects a whole input.
    const temp = path.join(path.dirname(destination), `.${path.basename(destination)}.${randomUUID()}.part`);
    try {
      const handle = await open(temp, 'wx');
      await pipeline(body, handle.createWriteStream());
      await rename(temp, destination);
    } catch (error) {
      body.destroy();
      await unlink(temp).catch(() => undefined);
      throw error;
    }
  }

  /**
   * A presigned GET that makes S3 itself send our Content-Disposition, Content-Type and
   * Cache-Control (response-* overrides). SigV4 counts expiry in whole seconds from a whole-second
   * X-Amz-Date, so the link is signed to die at expiresAt rounded down: never later than promised.
   * Past S3's 7-day maximum it dies at that maximum.
   */
  async temporaryUrl(key: string, options: TemporaryUrlOptions): Promise<string> {
    const objectKey = this.objectKey(key);
    const nowSeconds = Math.floor(Date.now() / 1000);
    const expiresIn = Math.min(Math.floor(options.expiresAt / 1000) - nowSeconds, MAX_PRESIGN_SECONDS);
    // The route refuses a result this close to its end (MIN_LINK_LIFETIME_MS); this is the race where
    // the second turned between its check and here: the same answer, never a 500.
    if (!(expiresIn >= 1))
      throw new QuireError('result_expired', 'The result is at the end of its retention period.');
    const command = new GetObjectCommand({
      Bucket: this.location.bucket,
      Key: objectKey,
      ResponseContentDisposition: attachmentDisposition(options.filename),
      ResponseContentType: options.contentType,
      ResponseCacheControl: 'private, no-store',
    });
    return getSignedUrl(this.client, command, {
      expiresIn,
      signingDate: new Date(nowSeconds * 1000),
    });
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.location.bucket }));
  }

  private objectKey(key: string): string {
    assertValidKey(key);
    return this.location.prefix === '' ? key : `${this.location.prefix}/${key}`;
  }
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

/**
 * HeadObject answers a bare 404 ("NotFound"); GetObject names it NoSuchKey. A missing bucket
 * (NoSuchBucket) is a misconfiguration, not a missing blob, so it stays an error.
 */
function isNotFound(error: unknown): boolean {
  const name = (error as Error | undefined)?.name;
  return name === 'NoSuchKey' || name === 'NotFound';
}
