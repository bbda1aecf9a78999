// Empty files and folders made ahead, off this thread, for the local store's writes. Creating a file
// or a folder allocates an inode, which on an ext4 without a journal (this machine's) costs 0.1–0.5
// ms of CPU: the allocator skips every inode freed in the last minutes (`recently_deleted`), and a
// busy service frees a few per job. So not on the request's path; opening a file that exists takes
// µs. A write takes a file (the pool makes the next on a pool thread) and renames it into place once
// written, as it would its own temporary file; a job's first write renames a folder made ahead to the
// job's folder. The files are copies of one empty file kept there: one call off this thread each.
//
// They live beside the store's root, in `.<root's name>-ahead-<pid>`: one folder per process, so no
// two processes take the same file; outside the root, so nothing that lists the store sees them; on
// the same file system, or there is no pool (a rename cannot cross one). A folder left by a process
// that is gone is removed by the next store opened on the same root.
import { randomUUID } from 'node:crypto';
import { constants, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { copyFile, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeFolderNow } from './local-write.js';

/** Files kept ready: a job's inputs, with room for the next job's; and folders, a job's own. */
const KEEP = 4;
const KEEP_FOLDERS = 2;

export class FilesAhead {
  private readonly dir: string;
  private readonly ready: string[] = [];
  private readonly folders: string[] = [];
  private making = false;
  /** The empty file each new one is copied from, made with the folder. */
  private template: string | undefined;
  /** False once the folder cannot serve: another file system, or no room to make it. */
  private usable = true;

  constructor(private readonly root: string) {
    const prefix = `.${path.basename(root)}-ahead-`;
    this.dir = path.join(path.dirname(root), `${prefix}${process.pid}`);
    removeGone(path.dirname(root), prefix);
  }

  /** An empty file of this process's, open for writing; undefined when none is ready yet. */
  take(): { path: string; fd: number } | undefined {
    const file = this.ready.pop();
    this.make();
    if (file === undefined) return undefined;
    try {
      return { path: file, fd: openSync(file, constants.O_WRONLY | constants.O_NOFOLLOW) };
    } catch {
      // Removed meanwhile (by an operator): the write makes its own file.
      return undefined;
    }
  }

  /**
   * Puts a folder made ahead at `folder` (a job's, missing), or makes it now when none is ready or
   * the rename fails (its parent is missing, or another write made it meanwhile).
   */
  placeFolder(folder: string): void {
    const made = this.folders.pop();
    this.make();
    if (made !== undefined) {
      try {
        renameSync(made, folder);
        return;
      } catch {
        rmSync(made, { recursive: true, force: true });
      }
    }
    makeFolderNow(folder);
  }

  private make(): void {
    const full = this.ready.length >= KEEP && this.folders.length >= KEEP_FOLDERS;
    if (this.making || !this.usable || full) return;
    this.making = true;
    void this.fill().finally(() => {
      this.making = false;
    });
  }

  /**
   * Makes what is missing, all at once: each file a copy of the empty template (one thread-pool call
   * each, where open and close would be two), each folder one mkdir.
   */
  private async fill(): Promise<void> {
    try {
      this.template ??= await this.check();
      const template = this.template;
      if (template === undefined) return;
      const files = Array.from({ length: KEEP - this.ready.length }, () => path.join(this.dir, randomUUID()));
      const folders = Array.from({ length: KEEP_FOLDERS - this.folders.length }, () =>
        path.join(this.dir, `d-${randomUUID()}`),
      );
      await Promise.all([
        ...files.map((file) =>
          copyFile(template, file, constants.COPYFILE_EXCL).then(() => this.ready.push(file)),
        ),
        ...folders.map((folder) => mkdir(folder).then(() => this.folders.push(folder))),
      ]);
    } catch {
      // A full disk, a removed folder: the writes make their own files until the next try, which
      // makes the folder again.
      this.template = undefined;
    }
  }

  /**
   * Makes the folder and its empty template file; gives the pool up (undefined) where a rename into
   * the root would cross file systems.
   */
  private async check(): Promise<string | undefined> {
    await mkdir(this.root, { recursive: true });
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const [root, dir] = await Promise.all([stat(this.root), stat(this.dir)]);
    if (root.dev === dir.dev) {
      const template = path.join(this.dir, 'empty');
      await writeFile(template, '');
      return template;
    }
    this.usable = false;
    await rm(this.dir, { recursive: true, force: true });
    return undefined;
  }
}

/** Removes the folders under `parent` named `prefix<pid>` of processes that are gone. */
function removeGone(parent: string, prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (!Number.isInteger(pid) || isAlive(pid)) continue;
    const dir = path.join(parent, name);
    if (statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
