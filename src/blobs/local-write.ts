// How the local blob store writes: a streamed body into a file in batches, and the directories
// its files go in, made when a file's creation finds its folder missing.
import type { Hash } from 'node:crypto';
import { mkdirSync, writev, writevSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const writevAt = promisify(writev);

/**
 * Size of the read stream's chunks and of the batches `fill` writes (Node's defaults are 64 KiB to
 * read and 16 KiB to buffer writes). A 9 MB upload or download then takes a few dozen file-system
 * calls and event-loop turns instead of hundreds; memory stays bounded by about one chunk per read
 * stream and two per put (one being written, one gathering).
 */
export const CHUNK_BYTES = 1024 * 1024;

/** Tries at creating a file in a directory that a concurrent delete keeps pruning. */
const MAX_ATTEMPTS = 3;

/**
 * Streams `body` into the open file `fd`: the chunks that arrive while a write is in flight are
 * gathered and written together by one writev, and at most CHUNK_BYTES gather before the reader
 * waits for that write. One loop instead of a pipeline of streams: a 64 KiB socket chunk costs one
 * iteration, not a hop through each stream's buffer.
 */
export async function fill(
  fd: number,
  body: AsyncIterable<Buffer | string>,
  hash: Hash | undefined,
): Promise<number> {
  let size = 0;
  let batch: Buffer[] = [];
  let batchBytes = 0;
  let writing: Promise<void> = Promise.resolve();
  try {
    for await (const chunk of body) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (bytes.length === 0) continue;
      hash?.update(bytes);
      size += bytes.length;
      batch.push(bytes);
      batchBytes += bytes.length;
      if (batchBytes >= CHUNK_BYTES) {
        await writing;
        writing = writeAll(fd, batch);
        // Awaited at the next batch or the end; a failure meanwhile must not count as unhandled.
        writing.catch(() => undefined);
        batch = [];
        batchBytes = 0;
      }
    }
  } catch (error) {
    // The body failed: the write in flight ends before the caller closes `fd`, whose number a
    // file opened meanwhile could otherwise take over.
    await writing.catch(() => undefined);
    throw error;
  }
  await writing;
  if (batchBytes > SYNC_WRITE_BYTES) await writeAll(fd, batch);
  else if (batch.length > 0) writeAllSync(fd, batch);
  return size;
}

/**
 * A last batch of at most this many bytes is written on this thread: a small upload (the common
 * case) is then one writev into the page cache, µs, where a thread-pool round trip costs the
 * service 60–80 µs of CPU and a wait on the critical path of the request.
 */
const SYNC_WRITE_BYTES = 256 * 1024;

/** writeAll on this thread, for a small last batch. */
function writeAllSync(fd: number, buffers: Buffer[]): void {
  let rest = buffers;
  while (rest.length > 0) rest = unwritten(rest, writevSync(fd, rest));
}

/** writev may write less than asked (a signal, a full disk about to fail): the rest follows. */
async function writeAll(fd: number, buffers: Buffer[]): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) rest = unwritten(rest, (await writevAt(fd, rest)).bytesWritten);
}

/** What is left of `buffers` after a writev that wrote `bytesWritten` of them. */
function unwritten(buffers: Buffer[], bytesWritten: number): Buffer[] {
  // Never for a regular file that still has room (the buffers are non-empty): no endless retry.
  if (bytesWritten === 0) throw new Error('writev wrote nothing');
  let rest = buffers;
  let left = bytesWritten;
  while (rest.length > 0 && left >= rest[0]!.length) {
    left -= rest[0]!.length;
    rest = rest.slice(1);
  }
  return rest.length > 0 && left > 0 ? [rest[0]!.subarray(left), ...rest.slice(1)] : rest;
}

/**
 * Runs `create` (which makes a file beside `target`), making the directory only when that fails
 * with ENOENT: trying first saves a mkdir per write into an existing job folder. ENOENT is retried,
 * as another process's delete may prune the (then empty) directory between our mkdir and the retry;
 * an ENOENT that outlasts the retries is the caller's own (a missing source) and is thrown.
 * Synchronous, like every metadata call of this store (local.ts says why).
 */
export function inDirectory<T>(
  target: string,
  create: () => T,
  makeFolder: (folder: string) => void = makeFolderNow,
): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return create();
    } catch (error) {
      if ((error as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT' || attempt >= MAX_ATTEMPTS)
        throw error;
      makeFolder(path.dirname(target));
    }
  }
}

export function makeFolderNow(folder: string): void {
  mkdirSync(folder, { recursive: true });
}
