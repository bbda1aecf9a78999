// Private scratch directories for engine runs and the 0600 files that carry secrets to engines.
// Secrets never go into argv: any local user can read another process's argv through `ps`.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Creates a 0700 directory under `parent`, runs `fn` in it and removes it however `fn` ends. */
export async function withWorkDir<T>(parent: string, fn: (dir: string) => Promise<T>): Promise<T> {
  // The parent exists but on the first job (or after an operator removed it): try first, then make it.
  const dir = await makeWorkDir(parent).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    await mkdir(parent, { recursive: true });
    return makeWorkDir(parent);
  });
  try {
    return await fn(dir);
  } finally {
    await removeWorkDir(dir);
  }
}

/**
 * Removes a work dir in fewer file-system calls than `rm -r`'s generic walk (which tries rmdir
 * first, then lstats every entry before unlinking it), each a thread-pool round trip for the
 * service: one listing, the unlinks side by side, one rmdir. Symbolic links are removed, never
 * followed. Anything unexpected falls back to `rm`.
 */
async function removeWorkDir(dir: string): Promise<void> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    await Promise.all(
      entries.map((entry) =>
        entry.isDirectory()
          ? rm(path.join(dir, entry.name), { recursive: true, force: true })
          : unlink(path.join(dir, entry.name)),
      ),
    );
    await rmdir(dir);
  } catch {
    await rm(dir, { recursive: true, force: true });
  }
}

/** mkdtemp already creates the directory with mode 0700 on POSIX; the prefix makes strays recognisable. */
export function makeWorkDir(parent: string): Promise<string> {
  return mkdtemp(path.join(parent, 'quire-'));
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
