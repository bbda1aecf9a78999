// The old generation's growing factor the long-running commands set (src/cli/v8-heap.ts): left to an
// operator who passed their own, and a flag this Node's V8 knows (it names an unknown one on stderr
// and carries on, so a renamed flag would otherwise go unnoticed).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWTH_FLAG, tuneHeapGrowth } from '../../src/cli/v8-heap.js';

describe('tuneHeapGrowth', () => {
  it('sets the factor unless the process was started with its own', () => {
    expect(tuneHeapGrowth(['--heap-growing-percent=50'])).toBe(false);
    expect(tuneHeapGrowth(['--heap_growing_percent=50'])).toBe(false);
    expect(tuneHeapGrowth(['--max-old-space-size=4096'])).toBe(true);
  });

  it('is a flag this Node’s V8 accepts at run time', () => {
    const unknown = spawnSync(
      process.execPath,
      ['-e', "require('v8').setFlagsFromString('--no-such-heap-flag')"],
      {
        encoding: 'utf8',
      },
    );
    // The check below can tell: an unknown flag is named on stderr.
    expect(unknown.stderr).toContain('unrecognized flag');
    const ours = spawnSync(
      process.execPath,
      ['-e', `require('v8').setFlagsFromString(${JSON.stringify(HEAP_GROWTH_FLAG)}); console.log('set')`],
      { encoding: 'utf8' },
    );
    expect(ours.status).toBe(0);
    expect(ours.stdout).toBe('set\n');
    expect(ours.stderr).toBe('');
  });
});
