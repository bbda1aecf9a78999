// Blobs on local disk under one root directory. Objects appear atomically (written to a hidden
// temporary file beside the target, then renamed), so a reader never sees half an object and a
// failed upload leaves nothing behind.
import { createHash, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, copyFile, link, open, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { assertValidKey, BlobNotFoundError } from './keys.js';
import { CHUNK_BYTES, Directories, fill } from './local-write.js';
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

/** errno codes meaning "a hard link cannot be made here", where a copy must do instead. */
const NO_LINK = new Set(['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP']);

export class LocalBlobStore implements BlobStore {
  private readonly root: string;
  private readonly baseUrl: string;
  private readonly directories = new Directories();

  constructor(
    root: string,
    private readonly options: LocalBlobStoreOptions,
  ) {
    this.root = path.resolve(root);
    this.baseUrl = (options.publicBaseUrl ?? '').replace(/\/+$/, '');
  }

  async put(key: string, body: PutBody, options: PutOptions = {}): Promise<StoredBlob> {
    const target = this.pathOf(key);
    // Created while the first bytes arrive rather than before reading them: for a new job folder
    // that is a failed open, a mkdir and an open (up to a few hundred µs each on ext4), which the
    // sender would otherwise wait for at the start of every file.
    const temp = this.createTemp(target);
    temp.catch(() => undefined); // awaited below; it must not count as unhandled while the body flows
    const hash = options.sha256 === false ? undefined : createHash('sha256');
    try {
      const size = await fill(
        temp.then((t) => t.handle),
        body,
        hash,
      );
      const { path: tempPath, handle } = await temp;
      await handle.close();
      await rename(tempPath, target);
      return hash ? { size, sha256: hash.digest('hex') } : { size };
    } catch (error) {
      const opened = await temp.catch(() => undefined);
      if (opened) {
        await opened.handle.close().catch(() => undefined);
        await unlink(opened.path).catch(() => undefined);
      }
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
    const handle = await open(this.pathOf(key), 'r').catch((error: unknown) => {
      throw isMissing(error) ? new BlobNotFoundError(key) : error;
    });
    return handle.createReadStream({
      highWaterMark: CHUNK_BYTES,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    try {
      const info = await stat(this.pathOf(key), { bigint: true });
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
    await unlink(target).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
    await this.pruneEmptyParents(path.dirname(target));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const folder = this.pathOf(prefix);
    await rm(folder, { recursive: true, force: true });
    await this.pruneEmptyParents(path.dirname(folder));
  }

  /** Hard-links `source` in (free, same disk); copies when the link is impossible. */
  async upload(key: string, source: string): Promise<{ size: number }> {
    const target = this.pathOf(key);
    try {
      // A hard link to the finished file is atomic by itself: the object appears whole at once, so
      // the common case (a new key) needs neither a temporary name nor a rename.
      await this.directories.inDirectory(target, () => link(source, target));
    } catch (error) {
      const code = errnoOf(error);
      if (code !== 'EEXIST' && !NO_LINK.has(code)) throw error;
      // Replacing an object, or copying (not atomic by itself): through a temporary file + rename.
      await this.directories.inDirectory(target, async () => {
        const temp = tempPathFor(target);
        try {
          await linkOrCopy(source, temp);
          await rename(temp, target);
        } catch (failure) {
          await unlink(temp).catch(() => undefined);
          throw failure;
        }
      });
    }
    return { size: Number((await stat(target)).size) };
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
      await unlink(destination).catch((failure: unknown) => {
        if (!isMissing(failure)) throw failure;
      });
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

  /** Opens a fresh temp file beside `target`. */
  private createTemp(target: string) {
    return this.directories.inDirectory(target, async () => {
      const tempPath = tempPathFor(target);
      return { path: tempPath, handle: await open(tempPath, 'wx') };
    });
  }

  /** Removes now-empty directories up to (not including) the root, so deleted jobs leave no trace. */
  private async pruneEmptyParents(dir: string): Promise<void> {
    for (let current = dir; current.startsWith(this.root + path.sep); current = path.dirname(current)) {
      try {
        await rmdir(current);
      } catch {
        // Not empty (another object or an upload in progress) or already gone: stop here.
        return;
      }
    }
  }
}

async function linkOrCopy(source: string, destination: string): Promise<void> {
  try {
    await link(source, destination);
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
