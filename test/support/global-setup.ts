// Builds dist/ once before the suite when its sources changed (scripts/build.sh, the same stamp
// scripts/serve.sh checks): the process-level tests run the real `quire` CLI as a child process,
// exactly as an operator would. Also builds the exec helper and the qpdf forkserver, and copies the
// Python drivers into dist/.
import { execFileSync } from 'node:child_process';
import { repoRoot } from './corpus.js';

export default function setup(): void {
  try {
    execFileSync('bash', ['scripts/build.sh'], { cwd: repoRoot, stdio: 'inherit' });
  } catch {
    // tsc still emits on type errors, and `npm run check` (part of the test command) fails on them;
    // tests that import src/ directly keep running, those that spawn dist/ show what broke.
    process.stderr.write('global-setup: the build reported errors; dist/ may be stale\n');
  }
}
