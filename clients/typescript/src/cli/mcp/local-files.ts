// The local files `quirectl mcp` may touch: only inside the directories given with --allow (none by
// default). Paths are checked on their real location, so neither `..` nor a symlink leads out.
import { constants, type FileHandle, lstat, open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** A local path the agent named that is not allowed; answered as an MCP tool error. */
export class PathRefused extends Error {}

export class AllowedDirs {
  private constructor(readonly roots: string[]) {}

  /** Each directory must exist; it is kept as its real path. */
  static async open(dirs: string[]): Promise<AllowedDirs> {
    const roots: string[] = [];
    for (const dir of dirs) {
      const real = await realpath(dir);
      if (!(await stat(real)).isDirectory()) throw new Error(`--allow ${dir}: not a directory`);
      roots.push(real);
    }
    return new AllowedDirs(roots);
  }

  /** The real path of a file the agent wants read: an existing regular file inside an allowed dir. */
  async readable(given: string): Promise<string> {
    const real = await realpath(this.#resolve(given)).catch(() => {
      throw new PathRefused(`${given}: no such file`);
    });
    this.#inside(given, real);
    if (!(await stat(real)).isFile()) throw new PathRefused(`${given}: not a regular file`);
    return real;
  }

  /**
   * Where a result may be written: its folder's real path inside an allowed dir, and the name not a
   * symlink (nor anything but a regular file) already.
   */
  async writable(given: string): Promise<string> {
    const wanted = this.#resolve(given);
    const folder = await realpath(path.dirname(wanted)).catch(() => {
      throw new PathRefused(`${given}: its folder does not exist`);
    });
    this.#inside(given, folder);
    const target = path.join(folder, path.basename(wanted));
    const existing = await lstat(target).catch(() => undefined);
    if (existing && !existing.isFile()) throw new PathRefused(`${given}: exists and is not a regular file`);
    return target;
  }

  /** Opens a checked target for writing; O_NOFOLLOW refuses a symlink put there since the check. */
  static openForWrite(target: string): Promise<FileHandle> {
    return open(
      target,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o644,
    );
  }

  #resolve(given: string): string {
    if (this.roots.length === 0)
      throw new PathRefused('local files are not allowed: start quirectl mcp with --allow DIR');
    if (given.split(/[\\/]/).includes('..')) throw new PathRefused(`${given}: ".." is not allowed in a path`);
    return path.resolve(this.roots[0]!, given);
  }

  #inside(given: string, real: string): void {
    const ok = this.roots.some((root) => {
      const relative = path.relative(root, real);
      return relative === '' || (relative.split(path.sep)[0] !== '..' && !path.isAbsolute(relative));
    });
    if (!ok) throw new PathRefused(`${given}: outside the allowed directories`);
  }
}
