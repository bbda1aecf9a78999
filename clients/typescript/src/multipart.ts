// The job and batch request body as a stream: form-data-encoder writes the parts in order (text
// first, as docs/api.md §2 asks, so a bad tool or option is refused before any byte of a file).
import { FormDataEncoder, type FormDataLike } from 'form-data-encoder';
import type { FilePart, Part } from './inputs.js';

type Entry = [string, string | FileLike];

/** The File shape form-data-encoder reads: it calls `stream()` once per encoding. */
class FileLike {
  readonly [Symbol.toStringTag] = 'File';
  readonly lastModified = 0;
  constructor(private readonly part: FilePart) {}
  get name(): string {
    return this.part.name;
  }
  get type(): string {
    return this.part.type;
  }
  get size(): number {
    return this.part.size;
  }
  stream(): ReadableStream<Uint8Array> {
    return this.part.stream();
  }
}

/** The smallest FormData form-data-encoder accepts: entries in insertion order, nothing else. */
class Fields {
  readonly [Symbol.toStringTag] = 'FormData';
  readonly #entries: Entry[] = [];
  append(name: string, value: string | FileLike): void {
    this.#entries.push([name, value]);
  }
  getAll(name: string): Array<string | FileLike> {
    return this.#entries.filter(([n]) => n === name).map(([, v]) => v);
  }
  *entries(): Generator<Entry> {
    yield* this.#entries;
  }
  [Symbol.iterator](): Generator<Entry> {
    return this.entries();
  }
}

export interface MultipartBody {
  headers: Record<string, string>;
  /** Whether every file part can be read again, so a retry may resend the body. */
  replayable: boolean;
  /** A fresh body stream for one attempt. */
  body(): ReadableStream<Uint8Array>;
}

/** `text` parts (already JSON-encoded where needed), then the inputs in order. */
export function multipartBody(text: Array<[string, string]>, parts: Part[]): MultipartBody {
  // One boundary for every attempt, so the headers computed once match each rebuilt body.
  const boundary = `quire${crypto.randomUUID().replaceAll('-', '')}`;
  const build = () => {
    const fields = new Fields();
    for (const [name, value] of text) fields.append(name, value);
    for (const part of parts) {
      if (part.kind === 'file') fields.append('file', new FileLike(part));
      else fields.append(part.kind, part.value);
    }
    return new FormDataEncoder(fields as unknown as FormDataLike, boundary);
  };
  const headers = { ...build().headers };
  return {
    headers,
    replayable: parts.every((p) => p.kind !== 'file' || p.replayable),
    body() {
      const iterator = build().encode();
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        async cancel() {
          await iterator.return?.(undefined);
        },
      });
    },
  };
}
