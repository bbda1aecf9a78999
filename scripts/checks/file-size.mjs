// Fails when a module of src/ is over 300 lines (docs/architecture.md: files are split by what they own).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const MAX_LINES = 300;

function* modules(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* modules(full);
    else if (/\.(ts|py)$/.test(entry.name)) yield full;
  }
}

const over = [...modules('src')]
  .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
  .filter(({ lines }) => lines > MAX_LINES);
for (const { file, lines } of over) console.error(`${file}: ${lines} lines (most ${MAX_LINES})`);
process.exit(over.length > 0 ? 1 : 0);
