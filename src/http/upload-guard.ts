// The per-file stream guard of a job upload: sniffs the content type from the first bytes and
// enforces the plan's per-file and the request's total byte limits while the file streams.
import { Transform, type TransformCallback } from 'node:stream';
import { QuireError } from '../errors/quire-error.js';
import { SNIFF_BYTES, sniffContentType } from '../tools/lib/sniff.js';
import { unsupportedContent } from './upload-fields.js';

/** The caller's plan limits, already capped by the server-wide settings. */
export interface UploadLimits {
  maxFileBytes: number;
  maxTotalBytes: number;
  maxFiles: number;
  /** Named in the 413 so the client knows which limit it hit (contract §5). */
  plan: string;
  /** QUIRE_WEBHOOKS_ALLOW_PRIVATE, for a `webhook_url` part. */
  allowPrivateWebhooks?: boolean;
}

/** The request-wide counter every file's guard adds to. */
export interface UploadTotals {
  totalBytes: number;
}

/** Sniffs the first bytes and enforces the per-file and per-request byte limits while streaming. */
export class UploadGuard extends Transform {
  contentType: string | undefined;
  private head: Buffer[] = [];
  private headBytes = 0;
  private fileBytes = 0;

  constructor(
    private readonly state: UploadTotals,
    private readonly limits: UploadLimits,
    private readonly accepts: readonly string[] | undefined,
  ) {
    super();
  }

  /** Bytes of this file so far: all of them once the stream has ended. */
  get size(): number {
    return this.fileBytes;
  }

  fileTooLarge(): QuireError {
    const { maxFileBytes, plan } = this.limits;
    return new QuireError(
      'payload_too_large',
      `A file is larger than ${maxFileBytes} bytes, the most the "${plan}" plan allows per file.`,
      { extras: { limit_bytes: maxFileBytes, plan }, headers: { Connection: 'close' } },
    );
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.count(chunk.length);
      callback(null, this.sniffed(chunk));
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      if (this.headBytes < SNIFF_BYTES) {
        this.decideOrThrow();
        if (this.head.length > 0) this.push(Buffer.concat(this.head));
      }
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  private count(bytes: number): void {
    this.fileBytes += bytes;
    this.state.totalBytes += bytes;
    if (this.fileBytes > this.limits.maxFileBytes) throw this.fileTooLarge();
    if (this.state.totalBytes > this.limits.maxTotalBytes) {
      throw new QuireError(
        'payload_too_large',
        `The upload is larger than ${this.limits.maxTotalBytes} bytes.`,
        {
          extras: { limit_bytes: this.limits.maxTotalBytes },
          headers: { Connection: 'close' },
        },
      );
    }
  }

  /** Holds back the first bytes until the type is known; then passes everything through. */
  private sniffed(chunk: Buffer): Buffer | undefined {
    if (this.headBytes >= SNIFF_BYTES) return chunk;
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes < SNIFF_BYTES) return undefined;
    this.decideOrThrow();
    const buffered = Buffer.concat(this.head);
    this.head = [];
    return buffered;
  }

  /** Fails fast, before the rest of a large file is stored, when the type is known to be wrong. */
  private decideOrThrow(): void {
    this.contentType = sniffContentType(Buffer.concat(this.head));
    const refused =
      this.contentType === undefined ||
      (this.accepts !== undefined && !this.accepts.includes(this.contentType));
    if (!refused) return;
    throw unsupportedContent(this.accepts);
  }
}
