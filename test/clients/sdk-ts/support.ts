// What the TypeScript SDK's tests share: the SDK from source, its package directory, a throwaway
// directory per test file, and the package compiled once per file for programs run as child processes.
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../support/corpus.js';

export const sdkDir = path.join(repoRoot, 'clients', 'typescript');

export function scratchDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), `quire-sdk-${prefix}-`));
}

/**
 * Compiles the package with its own tsc into a directory of its own inside the package (so the
 * compiled files resolve the package's node_modules) and returns that directory. One per caller,
 * so test files running side by side never write the same files.
 */
export async function buildSdk(tag: string): Promise<string> {
  const outDir = path.join(sdkDir, `.build-${tag}-${process.pid}`);
  await promisify(execFile)(
    process.execPath,
    [path.join(sdkDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', sdkDir, '--outDir', outDir, '--declaration', 'false', '--sourceMap', 'false'],
    { cwd: sdkDir },
  );
  return outDir;
}
