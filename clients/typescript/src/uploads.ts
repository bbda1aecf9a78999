// `client.uploads`: resumable uploads (tus 1.0, docs/api.md §12) with tus-js-client. On Node the
// upload URL of each file is remembered in a small JSON file (tus-js-client's FileUrlStorage), so a
// process killed mid-upload resumes where the server stopped when it uploads the same file again.
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as tus from 'tus-js-client';
import type { Transport } from './transport.js';
import { tusError } from './tus-error.js';

export interface UploadProgress {
  bytesSent: number;
  bytesTotal: number;
}

export interface Upload {
  /** `upl_…`, named in a job's inputs as `{ uploadId }`. */
  id: string;
  url: string;
  size: number;
}

/** The URL store tus-js-client ships for Node but leaves out of its type declarations. */
type UrlStorage = NonNullable<tus.UploadOptions['urlStorage']>;
const FileUrlStorage = (tus as unknown as { FileUrlStorage: new (file: string) => UrlStorage })
  .FileUrlStorage;

/** Files at or above this go through tus instead of the job's multipart body (docs/clients.md). */
export const DEFAULT_TUS_THRESHOLD = 64 * 1024 * 1024;
/** Read size within a chunk: Node's default (64 KiB) costs sixteen read calls and stream turns per MiB. */
const READ_BYTES = 1024 * 1024;

/**
 * tus-js-client's Node file reader with two changes: each chunk's stream reads READ_BYTES at a time,
 * and every chunk reads through the one descriptor opened for the upload, so the kernel's read-ahead
 * carries on from chunk to chunk instead of starting small again on a new descriptor. `input` is the
 * ReadStream given to the Upload (its path is also the resume fingerprint).
 */
const fileReader: NonNullable<tus.UploadOptions['fileReader']> = {
  async openFile(input: ReadStream) {
    const file = await open(String(input.path), 'r');
    const { size } = await file.stat();
    return {
      size,
      close: () => {
        input.destroy();
        void file.close();
      },
      async slice(start: number, end: number) {
        const last = Math.min(end, size);
        const value =
          last > start
            ? Object.assign(
                createReadStream('', {
                  fd: file.fd,
                  autoClose: false,
                  start,
                  end: last - 1,
                  highWaterMark: READ_BYTES,
                }),
                { size: last - start },
              )
            : Buffer.alloc(0);
        return { value, done: last >= size };
      },
    };
  },
};

export function defaultUploadStore(): string {
  const base = process.env.XDG_STATE_HOME ?? path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'quire', 'tus-uploads.json');
}

export class TusUploads {
  /**
   * `chunkBytes`: the bytes of one PATCH; by default the whole file in one, streamed, as
   * tus-js-client itself defaults: a broken connection still loses no byte that reached the server,
   * which keeps each as it arrives, and the retry resumes from its offset. Chunks only cost a request
   * each (with its authentication, lock and store lookup; 64 MiB chunks ran at 0.87× multipart's
   * throughput, one PATCH at 1.0×, `npm run bench -- uploads`); set it behind a proxy that limits a
   * request's body (Cloudflare's is 100 MB).
   */
  constructor(
    private readonly transport: Transport,
    readonly threshold: number,
    private readonly storeFile: string,
    private readonly chunkBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** Uploads (or resumes) the file at `file`; resolves once the server holds every byte. */
  async upload(
    file: string,
    options: { onProgress?: (p: UploadProgress) => void; signal?: AbortSignal; name?: string } = {},
  ): Promise<Upload> {
    await mkdir(path.dirname(this.storeFile), { recursive: true });
    const upload = new tus.Upload(createReadStream(file), {
      endpoint: this.transport.url('/api/v1/uploads'),
      headers: this.transport.authHeaders(),
      metadata: { filename: options.name ?? path.basename(file) },
      chunkSize: this.chunkBytes,
      fileReader,
      retryDelays: [0, 1000, 3000, 5000, 10000],
      urlStorage: new FileUrlStorage(this.storeFile),
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      onProgress: (bytesSent, bytesTotal) => options.onProgress?.({ bytesSent, bytesTotal }),
    });
    const previous = await upload.findPreviousUploads();
    const latest = previous.sort((a, b) => b.creationTime.localeCompare(a.creationTime))[0];
    if (latest) upload.resumeFromPreviousUpload(latest);
    await new Promise<void>((resolve, reject) => {
      const abort = () => {
        void upload.abort();
        reject(options.signal?.reason);
      };
      options.signal?.addEventListener('abort', abort, { once: true });
      upload.options.onSuccess = () => resolve();
      upload.options.onError = (error) => reject(tusError(error));
      upload.start();
    });
    const url = upload.url ?? '';
    return { id: url.slice(url.lastIndexOf('/') + 1), url, size: (await stat(file)).size };
  }

  /** `HEAD /uploads/{id}`: bytes stored and the whole length. */
  async status(id: string): Promise<{ offset: number; length: number }> {
    const response = await this.transport.send({
      method: 'HEAD',
      path: `/api/v1/uploads/${encodeURIComponent(id)}`,
      headers: { 'Tus-Resumable': '1.0.0' },
    });
    return {
      offset: Number(response.headers.get('upload-offset')),
      length: Number(response.headers.get('upload-length')),
    };
  }

  /** `DELETE /uploads/{id}` (tus termination). */
  async delete(id: string): Promise<void> {
    await this.transport.send({
      method: 'DELETE',
      path: `/api/v1/uploads/${encodeURIComponent(id)}`,
      headers: { 'Tus-Resumable': '1.0.0' },
    });
  }
}
