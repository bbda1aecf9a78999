// The stream guard of one `file` part: sniffs the content type from the first bytes and
// enforces the plan's per-file and the request's total byte limits while the file streams.
import { QuireError } from '../../errors/quire-error.js';
import { SNIFF_BYTES, sniffContentType } from '../../sniff/sniff.js';
import type { RequestLimits } from './limits.js';
import { unsupportedContent } from './refusals.js';

/** The request-wide counter every file's guard adds to. */
export interface RequestTotals {
  totalBytes: number;
}

/** The content type of a file whose first bytes no sniffer recognised. */
export const UNRECOGNIZED = 'application/octet-stream';

/**
 * Sniffs the first bytes and enforces the per-file and per-request byte limits while streaming. A
 * generator the store reads through, not a Transform: no second stream buffer and no pipeline (whose
 * teardown builds an AbortError per file) between the parser's stream and the store's loop.
 */
export class FileGuard {
  contentType: string | undefined;
  /** Resolves once `pass` has handed on the file's last byte; a failed file never gets there. */
  readonly passed: Promise<void>;
  private markPassed!: () => void;
  private head: Buffer[] = [];
  private headBytes = 0;
  private fileBytes = 0;

  constructor(
    private readonly state: RequestTotals,
    private readonly limits: RequestLimits,
    private readonly accepts: readonly string[] | undefined,
    /** This file's place among the request's inputs (0-based), named in a refusal. */
    private readonly index: number,
  ) {
    this.passed = new Promise((resolve) => {
      this.markPassed = resolve;
    });
  }

  /** Bytes of this file so far: all of them once `passed` has resolved. */
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

  /**
   * The file's bytes as they pass, the first held back until the type is known. A refusal throws,
   * which ends the reader's loop and, through `for await`, destroys the source.
   */
  async *pass(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      this.count(chunk.length);
      const out = this.sniffed(chunk);
      if (out) yield out;
    }
    if (this.headBytes < SNIFF_BYTES) {
      this.decideOrThrow();
      if (this.head.length > 0) yield joined(this.head);
    }
    this.markPassed();
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
    const buffered = joined(this.head);
    this.head = [];
    return buffered;
  }

  /**
   * Fails fast, before the rest of a large file is stored, when the type is known to be wrong. Before
   * the tool is known, content of no known type is kept as `UNRECOGNIZED` and refused once the tool
   * part has come, so the refusal names the tool's types whatever the order of the parts.
   */
  private decideOrThrow(): void {
    this.contentType = sniffContentType(joined(this.head));
    if (this.accepts === undefined) {
      this.contentType ??= UNRECOGNIZED;
      return;
    }
    if (this.contentType !== undefined && this.accepts.includes(this.contentType)) return;
    throw unsupportedContent(this.accepts, this.index);
  }
}

/** One chunk as it is (a socket's first chunk usually holds the whole head), several copied together. */
function joined(chunks: Buffer[]): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
