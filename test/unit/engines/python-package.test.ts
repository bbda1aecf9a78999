// The Python engines' start-up probe (src/engines/python-package.ts): versions read from a venv's
// installed metadata, on real directories, and on the venvs scripts/setup.sh installs.
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDF2DOCX_VENV } from '../../../src/engines/pdf2docx/pdf2docx.js';
import { PYMUPDF_VENV } from '../../../src/engines/pymupdf/pymupdf.js';
import { installedVersions } from '../../../src/engines/python-package.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'quire-venv-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function venv(name: string, python: string | undefined, distInfos: string[]): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'bin'), { recursive: true });
  if (python) await symlink(python, path.join(dir, 'bin', 'python'));
  for (const info of distInfos)
    await mkdir(path.join(dir, 'lib', 'python3.11', 'site-packages', info), { recursive: true });
  return dir;
}

describe('installedVersions', () => {
  it('reads each distribution’s version, matching names as PyPI normalises them', async () => {
    const dir = await venv('ok', process.execPath, [
      'PyMuPDF-1.24.14.dist-info',
      'pyhanko_certvalidator-0.33.0.dist-info',
    ]);
    expect(await installedVersions(dir, ['pymupdf', 'pyhanko-certvalidator'])).toEqual(['1.24.14', '0.33.0']);
  });

  it('is undefined when one distribution is missing or the venv’s Python cannot run', async () => {
    const partial = await venv('partial', process.execPath, ['pdf2docx-0.5.8.dist-info']);
    expect(await installedVersions(partial, ['pdf2docx', 'pymupdf'])).toBeUndefined();
    const dangling = await venv('dangling', path.join(root, 'no-such-python'), ['pdf2docx-0.5.8.dist-info']);
    expect(await installedVersions(dangling, ['pdf2docx'])).toBeUndefined();
    expect(await installedVersions(path.join(root, 'absent'), ['pdf2docx'])).toBeUndefined();
  });

  it('finds the versions scripts/setup.sh pins in the engines’ venvs', async () => {
    expect(await installedVersions(PYMUPDF_VENV, ['pymupdf'])).toEqual(['1.26.5']);
    expect(await installedVersions(PDF2DOCX_VENV, ['pdf2docx', 'pymupdf'])).toEqual(['0.5.8', '1.24.14']);
  });
});
