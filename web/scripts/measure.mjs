// Measures the first load of the built app (index.html and every script, style and preload it names)
// gzipped, writes dist/first-load.json, and fails the build over the budget (issue 28: 250 KB).
// Chunks reached only through import() (pdf.js) are not part of the first load.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export const BUDGET_BYTES = 250 * 1000;
const dist = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'dist');
const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
const named = [...html.matchAll(/(?:src|href)="\.\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
const files = ['index.html', ...new Set(named)];
const sizes = Object.fromEntries(files.map((f) => [f, gzipSync(readFileSync(path.join(dist, f))).length]));
const total = Object.values(sizes).reduce((a, b) => a + b, 0);
writeFileSync(
  path.join(dist, 'first-load.json'),
  `${JSON.stringify({ budget_bytes: BUDGET_BYTES, gzip_bytes: total, files: sizes }, null, 2)}\n`,
);
console.log(`[web] first load: ${total} bytes gzipped (budget ${BUDGET_BYTES})`);
if (total > BUDGET_BYTES) {
  console.error(`[web] over the first-load budget by ${total - BUDGET_BYTES} bytes`);
  process.exit(1);
}
