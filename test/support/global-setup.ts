// Builds dist/ once before the suite when sources are newer: the process-level tests run the real
// `quire` CLI as a child process, exactly as an operator would. Also builds the exec helper and
// copies the Python drivers into dist/.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './corpus.js';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  // The exec helper engines start through and the qpdf forkserver (no-ops when built from the current source).
  execFileSync('bash', ['scripts/build-helpers.sh'], { cwd: repoRoot, stdio: 'inherit' });
  // The Python drivers dist/ loads from beside its modules (a no-op when they are already there).
  execFileSync(process.execPath, ['scripts/copy-python.mjs'], { cwd: repoRoot, stdio: 'inherit' });
  const cli = path.join(repoRoot, 'dist/cli/main.js');
  if (existsSync(cli) && statSync(cli).mtimeMs >= newestMtime(path.join(repoRoot, 'src'))) return;
  try {
    execFileSync('npx', ['--no-install', 'tsc', '-p', 'tsconfig.build.json'], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
  } catch {
    // tsc still emits on type errors, and `npm run check` (part of the test command) fails on them;
    // tests that import src/ directly keep running, those that spawn dist/ show what broke.
    process.stderr.write('global-setup: tsc reported errors; dist/ may be stale\n');
  }
}
