import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingsTable } from '../../src/config/describe.js';
import { repoRoot } from '../support/corpus.js';

describe('README configuration table', () => {
  it('matches the configuration schema (regenerate with `node dist/config/print-table.js`)', () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    expect(readme).toContain(settingsTable());
  });

  it('has exactly two commands in the quick start, and CI runs the test one', () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const quickStart = readme.split('## Quick start')[1]!.split('\n## ')[0]!;
    const commands = [...quickStart.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
      m[1]!.trim().split('\n'),
    );
    expect(commands).toHaveLength(2);
    const ci = readFileSync(path.join(repoRoot, '.ci/run'), 'utf8');
    expect(ci).toContain(commands[1]!);
  });
});
