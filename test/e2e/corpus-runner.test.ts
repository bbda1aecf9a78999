// The corpus runner end to end: `scripts/corpus` starts its own `quire serve` (dist/), pushes every
// PDF of the shared corpus through the API and must find no mismatch, stuck job or crash.
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDir, repoRoot } from '../support/corpus.js';

/** Measured at about 75 s on 2 cores with nothing else running; the deadline leaves room for CI. */
const RUN_TIMEOUT_MS = 115_000;

describe('corpus runner', () => {
  it('runs the whole corpus through the real API with every outcome as the manifest expects', () => {
    execFileSync('npx', ['--no-install', 'tsc', '-p', 'scripts/tsconfig.json'], { cwd: repoRoot });
    const started = Date.now();
    const run = spawnSync(process.execPath, [path.join(repoRoot, 'dist/scripts/corpus/main.js'), corpusDir], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: RUN_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
    const report = `${run.stdout}\n${run.stderr}`;
    expect(run.status, report).toBe(0);
    expect(run.stdout).toMatch(/^\| file \| expected \| info \| repair \| compress \| rotate \|/m);
    expect(run.stdout).toMatch(/ 0 mismatches, 0 stuck, no crashes\./);
    expect(run.stdout).toContain('| qpdf__bad-xref-entry.pdf | repairable | ok');
    expect(Date.now() - started).toBeLessThan(RUN_TIMEOUT_MS);
  }, 180_000);
});
