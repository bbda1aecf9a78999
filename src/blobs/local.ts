// Blobs on local disk under one root directory. Objects appear atomically (written to a temporary
// file, hidden beside the target or made ahead beside the root (local-ahead.ts), then renamed), so a
// reader never sees half an object and a failed upload leaves nothing behind. Bytes move
// asynchronously (streamed), except a small object's whole read by `get` (readIfSmall); the calls on
// names (open, close, link, rename, unlink, stat, mkdir, rmdir of one entry) are synchronous: on a local
// disk each takes a few µs, while a thread-pool round trip costs the service 60–80 µs of CPU in
// wake-ups and context switches (docs/benchmarks.md, `job-overhead`), about two dozen per job.
// better-sqlite3 already does its I/O on this thread, on the same disk.
import { createHash, randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  createReadStream,
  fstatSync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { access, copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { assertValidKey, BlobNotFoundError } from './keys.js';
import { FilesAhead } from './local-ahead.js';
import { CHUNK_BYTES, fill, inDirectory } from './local-write.js';
import { signFileToken } from './signed-url.js';
import type {
  BlobInfo,
  BlobStore,
  ByteRange,
  PutBody,
  PutOptions,
  StoredBlob,
  TemporaryUrlOptions,
} from './types.js';

export interface LocalBlobStoreOptions {
  /** Secret for temporary-link tokens; shared by every API process serving the same root. */
  secret: Buffer | string;
  /** Absolute origin for links (e.g. https://pdf.example.com); links are relative when empty. */
  publicBaseUrl?: string;
}

/** Objects up to this size are read whole by `get` on this thread (readIfSmall says why). */
const SMALL_READ_BYTES = 256 * 1024;

/** errno codes meaning "a hard link cannot be made here", where a copy must do instead. */
const NO_LINK = new Set(['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP']);

export class LocalBlobStore implements BlobStore {
  private readonly root: string;
  private readonly baseUrl: string;

  private readonly ahead: FilesAhead;

  constructor(
    root: string,
    private readonly options: LocalBlobStoreOptions,
  ) {
    this.root = path.resolve(root);
    this.baseUrl = (options.publicBaseUrl ?? '').replace(/\/+$/, '');
    this.ahead = new FilesAhead(this.root);
  }

  async put(key: string, body: PutBody, options: PutOptions = {}): Promise<StoredBlob> {
    const target = this.pathOf(key);
    // A file made ahead (local-ahead.ts) when one is ready, else one made now beside the target.
    const temp = this.ahead.take() ?? createTemp(target);
    const hash = options.sha256 === false ? undefined : createHash('sha256');
    try {
      const size = await fill(temp.fd, body, hash);
      closeSync(temp.fd);
      temp.fd = -1;
      // The target's folder is made here when it is missing (a job's first file).
      inDirectory(
        target,
        () => renameSync(temp.path, target),
        (folder) => this.ahead.placeFolder(folder),
      );
      return hash ? { size, sha256: hash.digest('hex') } : { size };
    } catch (error) {
      if (temp.fd >= 0) closeQuietly(temp.fd);
      unlinkQuietly(temp.path);
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    if (
      range &&
      !(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && range.start >= 0)
    ) {
      throw new RangeError('Byte range bounds must be non-negative integers');
    }
    if (range && range.end < range.start) throw new RangeError('Byte range ends before it starts');
    // Opened here rather than lazily by the stream so that a missing object rejects this call
    // instead of erroring a stream the caller may already have started sending.
    let fd: number;
    try {
      fd = openSync(this.pathOf(key), 'r');
    } catch (error) {
      throw isMissing(error) ? new BlobNotFoundError(key) : error;
    }
    if (!range) {
      const small = readIfSmall(fd);
      if (small) return Readable.from([small], { objectMode: false });
    }
    return createReadStream('', {
      fd,
      highWaterMark: CHUNK_BYTES,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    try {
      const info = statSync(this.pathOf(key), { bigint: true });
      // Every write makes a new file (temp + rename, or a link to a finished one), so inode, size and
      // nanosecond mtime together change whenever the content can have changed: a strong validator
      // without hashing the file.
      const etag = `"${info.ino.toString(36)}-${info.size.toString(36)}-${info.mtimeNs.toString(36)}"`;
      return { size: Number(info.size), etag };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const target = this.pathOf(key);
    unlinkIfPresent(target);
    this.pruneEmptyParents(path.dirname(target));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const folder = this.pathOf(prefix);
    // A job folder holds up to a plan's files: removed off this thread.
    await rm(folder, { recursive: true, force: true });
    this.pruneEmptyParents(path.dirname(folder));
  }

  /** Hard-links `source` in (free, same disk); copies when the link is impossible. */
  async upload(key: string, source: string): Promise<{ size: number }> {
    const target = this.pathOf(key);
    try {
      // A hard link to the finished file is atomic by itself: the object appears whole at once, so
      // the common case (a new key) needs neither a temporary name nor a rename.
      inDirectory(target, () => linkSync(source, target));
    } catch (error) {
      const code = errnoOf(error);
      if (code !== 'EEXIST' && !NO_LINK.has(code)) throw error;
      // Replacing an object, or copying (not atomic by itself): through a temporary file + rename.
      // The folder exists: the link found the target there, or failed after making it.
      const temp = tempPathFor(target);
      try {
        await linkOrCopy(source, temp);
        renameSync(temp, target);
      } catch (failure) {
        unlinkQuietly(temp);
        throw failure;
      }
    }
    return { size: statSync(target).size };
  }

  /** The destination shares the object's inode when linked: treat it as read-only. */
  async download(key: string, destination: string): Promise<void> {
    const source = this.pathOf(key);
    const notFound = (error: unknown) => {
      throw isMissing(error) ? new BlobNotFoundError(key) : error;
    };
    try {
      await linkOrCopy(source, destination);
    } catch (error) {
      if (errnoOf(error) !== 'EEXIST') notFound(error);
      // Replacing a file is rare (fresh work directories), so only then is it unlinked first.
      unlinkIfPresent(destination);
      await linkOrCopy(source, destination).catch(notFound);
    }
  }

  async temporaryUrl(key: string, options: TemporaryUrlOptions): Promise<string> {
    assertValidKey(key);
    const token = signFileToken({ key, ...options }, this.options.secret);
    return `${this.baseUrl}/api/v1/files/${token}`;
  }

  async ping(): Promise<void> {
    await access(this.root, constants.R_OK | constants.W_OK);
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  /** Removes now-empty directories up to (not including) the root, so deleted jobs leave no trace. */
  private pruneEmptyParents(dir: string): void {
    for (let current = dir; current.startsWith(this.root + path.sep); current = path.dirname(current)) {
      try {
        rmdirSync(current);
      } catch {
        // Not empty (another object or an upload in progress) or already gone: stop here.
        return;
      }
    }
  }
}

/**
 * A whole object of at most SMALL_READ_BYTES, read on this thread and `fd` closed; undefined (and
 * `fd` left open) for a larger one. A small job's result or input was written moments ago and is in
 * the page cache: one read here costs µs, where a stream costs a thread-pool round trip for each
 * read, the read that finds the end and the close.
 */
function readIfSmall(fd: number): Buffer | undefined {
  let size: number;
  try {
    size = fstatSync(fd).size;
  } catch (error) {
    closeQuietly(fd);
    throw error;
  }
  if (size > SMALL_READ_BYTES) return undefined;
  try {
    const buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const read = readSync(fd, buffer, filled, size - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** Opens a fresh temp file beside `target` (`wx`: never an existing file or a planted link). */
function createTemp(target: string): { path: string; fd: number } {
  return inDirectory(target, () => {
    const tempPath = tempPathFor(target);
    return { path: tempPath, fd: openSync(tempPath, 'wx') };
  });
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed, or the disk failed: the file is being removed anyway.
  }
}

/** Removes `file`; one already gone is no error, any other failure is. */
function unlinkIfPresent(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Never created, or already gone.
  }
}

async function linkOrCopy(source: string, destination: string): Promise<void> {
  try {
    linkSync(source, destination);
  } catch (error) {
    if (!NO_LINK.has(errnoOf(error))) throw error;
    // copyFile uses copy_file_range / reflinks where the kernel offers them: no bytes through JS.
    await copyFile(source, destination, constants.COPYFILE_EXCL);
  }
}

/** Hidden (keys never start with a dot) and unique, in the target's directory so rename is atomic. */
function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomUUID()}.tmp`);
}

function errnoOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? '';
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
