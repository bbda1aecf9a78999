// Private scratch directories for engine runs and the 0600 files that carry secrets to engines.
// Secrets never go into argv: any local user can read another process's argv through `ps`.
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, unlinkSync } from 'node:fs';
import { mkdtemp, open, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Entries up to which a work dir is emptied on this thread: a job's inputs, output and a few engine
 * files. More (a page per image, an engine's temp tree) are removed off it, by `rm`.
 */
const SMALL_DIR_ENTRIES = 16;

/**
 * Creates a 0700 directory under `parent`, runs `fn` in it and removes it however `fn` ends. The
 * calls on names are synchronous, as in the local blob store (blobs/local.ts says why): a few µs
 * each, where a thread-pool round trip costs more CPU than the call.
 */
export async function withWorkDir<T>(parent: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = openWorkDir(parent);
  try {
    return await fn(dir);
  } finally {
    await removeWorkDir(dir);
  }
}

/**
 * A new work dir under `parent`, which is made first if missing; the caller removes it with
 * `removeWorkDir` however its work ends. For a caller whose work should not run as a callback of
 * this module (the job runner: docs/architecture.md, "The call path of a job").
 */
export function openWorkDir(parent: string): string {
  const taken = takeReady(parent);
  if (taken) withMadeFile.add(taken);
  const dir = taken ?? makeNow(parent);
  if ((ready.get(parent)?.length ?? 0) + (pending.get(parent) ?? 0) === 0) makeAhead(parent);
  return dir;
}

/**
 * Gives `target`, a new name in a work dir, the empty file made ahead in that dir (MADE_FILE), when
 * it still holds one: the engine then writes into a file that exists instead of making one, which
 * on this machine's disk costs 0.2–0.5 ms of CPU on the run's path (see `ready` below). False when
 * there is none; the engine makes the file as usual. Only for an output an engine writes whole and
 * whose failure its exit status tells, never a missing file: until written, the file is empty.
 */
export function takeMadeFile(target: string): boolean {
  const dir = path.dirname(target);
  if (!withMadeFile.delete(dir)) return false;
  try {
    renameSync(path.join(dir, MADE_FILE), target);
    return true;
  } catch {
    return false;
  }
}

function makeNow(parent: string): string {
  try {
    return makeWorkDir(parent);
  } catch (error) {
    // The parent exists but on the first job (or after an operator removed it): made, then retried.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(parent, { recursive: true });
    return makeWorkDir(parent);
  }
}

/**
 * Removes a work dir: a small flat one (the usual case) by one listing and its unlinks on this
 * thread, before the first await, so its files are gone when this call returns its promise; then
 * its rmdir off this thread, as freeing a directory's block can wait on the disk (0.4–1.2 ms on an
 * ext4 mounted with `discard`, where the unlinks take µs), which the caller need not wait for at
 * once. Anything larger, nested or unexpected by `rm -r` off this thread. Symbolic links are
 * removed, never followed.
 *
 * With `reuse` (the job runner, for a job that succeeded: every engine run of it has ended), the
 * emptied dir is kept for a next job instead (`offer`), up to KEEP_READY per parent.
 */
export async function removeWorkDir(dir: string, options: { reuse?: boolean } = {}): Promise<void> {
  // A made file no job took is kept for the next job when the dir is.
  const keepMade = withMadeFile.delete(dir) && options.reuse === true;
  try {
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.length <= SMALL_DIR_ENTRIES && !entries.some((entry) => entry.isDirectory())) {
      for (const entry of entries)
        if (!(keepMade && entry.name === MADE_FILE)) unlinkSync(path.join(dir, entry.name));
      if (options.reuse && offer(dir)) return;
      if (keepMade) unlinkSync(path.join(dir, MADE_FILE));
      await rmdir(dir);
      return;
    }
  } catch {
    // Fall through to the thorough removal.
  }
  await rm(dir, { recursive: true, force: true });
}

/**
 * Work dirs ready for the next job, per parent: one made ahead off this thread, or a finished job's,
 * emptied and renamed; each holds one empty 0600 file made off this thread too (MADE_FILE), for the
 * job's output (`takeMadeFile`). Making a directory or a file allocates an inode, and removing it
 * frees one, which on an ext4 without a journal (this machine's) costs 0.2–0.5 ms of CPU each: the
 * allocator skips every inode freed in the last minutes (`recently_deleted`), and a busy service
 * frees several per job. A job that follows another takes its emptied dir under a new name, so no
 * late write to the old path (there should be none: only a succeeded job's dir is offered) can land
 * in it. Handed out only while younger than READY_MAX_AGE_MS, far inside the stale-dir sweep's age
 * (three engine time limits), so the sweep never removes one a job is about to take, and only when
 * it still holds nothing but its empty file, all of ours and private; any other is removed.
 */
const ready = new Map<string, { dir: string; readyAt: number }[]>();
/** Dirs on their way into `ready`, per parent: their file is being made. */
const pending = new Map<string, number>();
/** Handed-out dirs that still hold their made file. */
const withMadeFile = new Set<string>();
const makingAhead = new Set<string>();
const MADE_FILE = '.made-ahead';
const READY_MAX_AGE_MS = 1_000;
const KEEP_READY = 2;

function takeReady(parent: string): string | undefined {
  const list = ready.get(parent);
  for (let entry = list?.pop(); entry; entry = list?.pop()) {
    if (Date.now() - entry.readyAt <= READY_MAX_AGE_MS && isReadyDir(entry.dir)) return entry.dir;
    rm(entry.dir, { recursive: true, force: true }).catch(() => undefined);
  }
  return undefined;
}

/** A 0700 directory of ours holding only its made file: empty, 0600, ours, with no other name. */
function isReadyDir(dir: string): boolean {
  try {
    const info = lstatSync(dir);
    const names = readdirSync(dir);
    if (!info.isDirectory() || (info.mode & 0o777) !== 0o700 || info.uid !== process.getuid?.()) return false;
    if (names.length !== 1 || names[0] !== MADE_FILE) return false;
    const made = lstatSync(path.join(dir, MADE_FILE));
    return (
      made.isFile() &&
      made.size === 0 &&
      made.nlink === 1 &&
      (made.mode & 0o777) === 0o600 &&
      made.uid === info.uid
    );
  } catch {
    return false;
  }
}

/** Keeps the emptied `dir` for a next job under a new name; false when none is wanted or it failed. */
function offer(dir: string): boolean {
  const parent = path.dirname(dir);
  if ((ready.get(parent)?.length ?? 0) + (pending.get(parent) ?? 0) >= KEEP_READY) return false;
  // 72 random bits: no two names meet (a rename onto an empty directory would replace it).
  const renamed = path.join(parent, `quire-${randomBytes(9).toString('base64url')}`);
  try {
    renameSync(dir, renamed);
  } catch {
    return false;
  }
  makeFileThenKeep(parent, renamed);
  return true;
}

function makeAhead(parent: string): void {
  if (makingAhead.has(parent)) return;
  makingAhead.add(parent);
  mkdtemp(path.join(parent, 'quire-'))
    .then((dir) => makeFileThenKeep(parent, dir))
    // A parent not made yet (the first job makes it) or gone: the next job makes its dir itself.
    .catch(() => undefined)
    .finally(() => makingAhead.delete(parent));
}

/**
 * Puts `dir` into `ready` once its made file exists (kept, if a job left it, else made off this
 * thread); a dir whose file cannot be made, or that is not wanted any more, is removed.
 */
async function makeFileThenKeep(parent: string, dir: string): Promise<void> {
  pending.set(parent, (pending.get(parent) ?? 0) + 1);
  try {
    await open(path.join(dir, MADE_FILE), 'wx', 0o600).then(
      (file) => file.close(),
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      },
    );
    const list = ready.get(parent) ?? [];
    if (list.length >= KEEP_READY) throw new Error('enough ready');
    list.push({ dir, readyAt: Date.now() });
    ready.set(parent, list);
  } catch {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  } finally {
    pending.set(parent, (pending.get(parent) ?? 1) - 1);
  }
}

/** mkdtemp already creates the directory with mode 0700 on POSIX; the prefix makes strays recognisable. */
export function makeWorkDir(parent: string): string {
  return mkdtempSync(path.join(parent, 'quire-'));
}

/**
 * Writes `value` to a new file readable only by us (0600) inside `dir` and returns its path.
 * The name is random so two secrets in one directory never collide; `wx` refuses to follow a
 * pre-planted file or symlink.
 */
export async function writeSecretFile(dir: string, value: string, label = 'secret'): Promise<string> {
  const file = path.join(dir, `.${label}-${randomBytes(6).toString('hex')}`);
  await writeFile(file, value, { mode: 0o600, flag: 'wx' });
  return file;
}

/** Removes a secret file early (the work dir's removal is the backstop). */
export async function removeSecretFile(file: string): Promise<void> {
  await rm(file, { force: true });
}

/**
 * Removes work dirs under `parent` older than `olderThanMs`: the leftovers of workers killed mid-job
 * (kill -9 skips the `finally` that normally removes them). A live job's dir is never that old.
 */
export async function removeStaleWorkDirs(
  parent: string,
  olderThanMs: number,
  now = Date.now(),
): Promise<number> {
  const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith('quire-')) continue;
    const dir = path.join(parent, entry.name);
    const info = await stat(dir).catch(() => undefined);
    if (!info || now - info.mtimeMs < olderThanMs) continue;
    await rm(dir, { recursive: true, force: true });
    removed++;
  }
  return removed;
}
