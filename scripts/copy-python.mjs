// Copies every .py file of src/ (the Python engine drivers) to the same relative place under dist/,
// beside the compiled module that loads it with `new URL('./name.py', import.meta.url)`; `.py` files
// under dist/ that src/ no longer has are removed. Part of the build (`npm run build`,
// scripts/setup.sh); running it again changes nothing.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.join(import.meta.dirname, '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

/** Paths of the .py files under `dir`, relative to it ([] when `dir` does not exist). */
function pythonFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.py'))
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

function sameContent(a, b) {
  try {
    return readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}

const wanted = pythonFiles(src);
for (const file of wanted) {
  const from = path.join(src, file);
  const to = path.join(dist, file);
  if (sameContent(from, to)) continue;
  mkdirSync(path.dirname(to), { recursive: true });
  copyFileSync(from, to);
}
const keep = new Set(wanted);
for (const file of pythonFiles(dist).filter((f) => !keep.has(f))) rmSync(path.join(dist, file));
