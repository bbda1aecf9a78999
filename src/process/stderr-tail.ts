// Bounded capture of a child's output: a byte-capped tail for diagnostics and a line splitter for
// progress parsers. Engines can print megabytes of warnings; we keep memory flat regardless.
import { StringDecoder } from 'node:string_decoder';

/** Keeps only the last `maxBytes` bytes written to it. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.maxBytes && this.chunks.length > 1) {
      const dropped = this.chunks.shift()!;
      this.size -= dropped.length;
    }
    if (this.size > this.maxBytes) {
      const only = this.chunks[0]!;
      this.chunks = [only.subarray(only.length - this.maxBytes)];
      this.size = this.maxBytes;
    }
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** Keeps the first `maxBytes` bytes and remembers whether anything was cut off. */
export class HeadBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    const room = this.maxBytes - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** A line longer than this is delivered in pieces so a newline-free stream cannot grow memory. */
const MAX_LINE_BYTES = 64 * 1024;

/**
 * Splits a byte stream into lines (LF, CRLF or bare CR — qpdf and Ghostscript both redraw progress
 * with CR on some builds) and hands each to `onLine` without its terminator.
 */
export function createLineSplitter(onLine: (line: string) => void): {
  push(chunk: Buffer): void;
  end(): void;
} {
  // A multi-byte character may straddle two chunks; the decoder holds the partial bytes back.
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const flushLines = () => {
    let match = /\r\n|\r|\n/.exec(pending);
    while (match) {
      onLine(pending.slice(0, match.index));
      pending = pending.slice(match.index + match[0].length);
      match = /\r\n|\r|\n/.exec(pending);
    }
    if (pending.length > MAX_LINE_BYTES) {
      onLine(pending);
      pending = '';
    }
  };
  return {
    push(chunk) {
      pending += decoder.write(chunk);
      flushLines();
    },
    end() {
      pending += decoder.end();
      if (pending.length > 0) onLine(pending);
      pending = '';
    },
  };
}
