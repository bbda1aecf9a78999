// `npm run bench [-- name …]`: builds src/ and bench/, then runs dist/bench/run.js with the names;
// `npm run bench -- --help` lists the benchmarks (bench/list.json, one line each) without building.
// Plain JavaScript so that the list needs no build; run.ts checks its table against the same list.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

if (args.includes('--help') || args.includes('-h')) {
  const list = JSON.parse(readFileSync(path.join(root, 'bench', 'list.json'), 'utf8'));
  const width = Math.max(...Object.keys(list).map((name) => name.length));
  process.stdout.write(
    'usage: npm run bench [-- name …]   (all by default; docs/benchmarks.md has the figures)\n\n' +
      Object.entries(list)
        .map(([name, line]) => `  ${name.padEnd(width)}  ${line}`)
        .join('\n') +
      '\n',
  );
  process.exit(0);
}

const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
execFileSync(tsc, ['-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
execFileSync(process.execPath, [path.join(root, 'scripts', 'copy-python.mjs')], { stdio: 'inherit' });
execFileSync(tsc, ['-p', path.join(root, 'bench', 'tsconfig.json')], { stdio: 'inherit' });
const run = spawnSync(process.execPath, [path.join(root, 'dist', 'bench', 'run.js'), ...args], {
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
