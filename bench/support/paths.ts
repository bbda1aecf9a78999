// Where the benchmarks find the built service and the shared corpus. Compiled to dist/bench/support,
// so the repository root is three levels up from here at run time.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const cliEntry = path.join(repoRoot, 'dist/cli/main.js');
export const corpusDir = path.resolve(repoRoot, '../shared/corpus');

export function corpusFile(name: string): string {
  return path.join(corpusDir, name);
}
