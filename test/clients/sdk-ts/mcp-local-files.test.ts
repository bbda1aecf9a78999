// The allowed-directory check of `quirectl mcp` on a real file system: what it takes and what it
// refuses, including names that only look like `..` and an allowed directory reached by a symlink.
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AllowedDirs, PathRefused } from '../../../clients/typescript/src/cli/mcp/local-files.js';
import { scratchDir } from './support.js';

let dir: string;
let allowed: AllowedDirs;

beforeAll(async () => {
  dir = await scratchDir('mcp-files');
  await mkdir(path.join(dir, 'in', 'sub'), { recursive: true });
  await mkdir(path.join(dir, 'out'));
  await writeFile(path.join(dir, 'in', '..a.pdf'), 'x');
  await writeFile(path.join(dir, 'in', 'sub', 'b.pdf'), 'x');
  await writeFile(path.join(dir, 'in-sibling.pdf'), 'x');
  await writeFile(path.join(dir, 'out', 'c.pdf'), 'x');
  await symlink(path.join(dir, 'in'), path.join(dir, 'in-link'));
  await symlink(path.join(dir, 'out', 'c.pdf'), path.join(dir, 'in', 'sub', 'escape.pdf'));
  // Allowed through a symlink: kept as its real path, so files under it are inside.
  allowed = await AllowedDirs.open([path.join(dir, 'in-link')]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('AllowedDirs', () => {
  it.each([
    ['a name starting with two dots', '..a.pdf', '..a.pdf'],
    ['a relative path into a subfolder', 'sub/b.pdf', 'sub/b.pdf'],
    ['an absolute path through the symlinked allowed dir', 'ABS:in-link/sub/b.pdf', 'sub/b.pdf'],
  ])('reads %s', async (_case, given, inside) => {
    const wanted = given.startsWith('ABS:') ? path.join(dir, given.slice(4)) : given;
    expect(await allowed.readable(wanted)).toBe(path.join(dir, 'in', inside));
  });

  it.each([
    ['a sibling whose name starts like the allowed dir', 'ABS:in-sibling.pdf', /outside/],
    ['a ".." segment, even one that stays inside', 'sub/../sub/b.pdf', /"\.\." is not allowed/],
    ['a symlink to a file outside', 'sub/escape.pdf', /outside/],
    ['a folder instead of a file', 'sub', /not a regular file/],
    ['a file that does not exist', 'nothing.pdf', /no such file/],
  ])('refuses %s', async (_case, given, reason) => {
    const wanted = given.startsWith('ABS:') ? path.join(dir, given.slice(4)) : given;
    await expect(allowed.readable(wanted)).rejects.toThrow(PathRefused);
    await expect(allowed.readable(wanted)).rejects.toThrow(reason);
  });

  it('writes only to a regular file or a new name inside, never through a symlink', async () => {
    expect(await allowed.writable('sub/new.pdf')).toBe(path.join(dir, 'in', 'sub', 'new.pdf'));
    await expect(allowed.writable('sub/escape.pdf')).rejects.toThrow(/not a regular file/);
    await expect(allowed.writable(path.join(dir, 'out', 'd.pdf'))).rejects.toThrow(/outside/);
    await expect(allowed.writable('missing/d.pdf')).rejects.toThrow(/folder does not exist/);
  });

  it('takes nothing when no directory is allowed', async () => {
    const none = await AllowedDirs.open([]);
    await expect(none.readable(path.join(dir, 'in', 'sub', 'b.pdf'))).rejects.toThrow(/--allow/);
  });
});
