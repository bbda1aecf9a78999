// docs/benchmarks.md is a results page: it opens with one table that gives every benchmark of
// `npm run bench` (bench/run.ts) a row naming its command, each with a target or "reported", and
// the page stays short enough to read (history lives in git).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';

const page = readFileSync(path.join(repoRoot, 'docs', 'benchmarks.md'), 'utf8');

/** The names of bench/run.ts's BENCHMARKS table, read from its source (bench/ is built apart). */
function benchmarkNames(): string[] {
  const source = readFileSync(path.join(repoRoot, 'bench', 'run.ts'), 'utf8');
  const table = /const BENCHMARKS[^{]*\{([\s\S]*?)\n\};/.exec(source)?.[1] ?? '';
  return [...table.matchAll(/^\s*'?([a-z][a-z-]*)'?[:,]/gm)].map((m) => m[1]!);
}

/** Rows of the first table after "## Current figures", as cells. */
function currentFigures(): string[][] {
  const start = page.indexOf('\n## Current figures\n');
  const section = page.slice(start, page.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|').map((cell) => cell.trim()));
}

describe('docs/benchmarks.md', () => {
  it('opens with the current figures, one or more rows for every benchmark, each naming its command', () => {
    expect(page.indexOf('## Current figures')).toBeLessThan(page.indexOf('## Machine'));
    const names = benchmarkNames();
    expect(names.length).toBeGreaterThan(10);
    const commands = new Set(currentFigures().map((cells) => cells[1]!.replaceAll('`', '')));
    expect([...commands].sort()).toEqual([...names].sort());
  });

  it('gives every row a figure, a target and a verdict', () => {
    for (const cells of currentFigures()) {
      const [, , what, figure, target, verdict] = cells;
      expect(what, cells.join('|')).not.toBe('');
      expect(figure, cells.join('|')).toMatch(/\d/);
      expect(target, cells.join('|')).not.toBe('');
      expect(verdict, cells.join('|')).toMatch(/^(met|not met|—)/);
    }
  });

  it('has the same benchmarks in bench/list.json, which `npm run bench -- --help` prints without building', () => {
    const listed = JSON.parse(readFileSync(path.join(repoRoot, 'bench', 'list.json'), 'utf8'));
    expect(Object.keys(listed).sort()).toEqual(benchmarkNames().sort());
    // launch.mjs answers --help before it would start tsc, so this runs in a fraction of a build.
    const help = execFileSync(process.execPath, [path.join(repoRoot, 'bench', 'launch.mjs'), '--help'], {
      encoding: 'utf8',
    });
    for (const name of benchmarkNames()) expect(help).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });

  it('is a results page under 400 lines', () => {
    expect(page.split('\n').length).toBeLessThan(400);
  });
});
