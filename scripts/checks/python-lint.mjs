// Lints every .py file of src/ and test/ (the engine drivers and the test helpers) with ruff, as
// ruff.toml says; scripts/setup.sh --with-test-tools installs the pinned ruff into .tmp/lint-tools.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const root = path.join(import.meta.dirname, '..', '..');
const ruff = path.join(root, '.tmp/lint-tools/bin/ruff');
if (!existsSync(ruff)) {
  console.error(`${path.relative(root, ruff)} is missing: run scripts/setup.sh --with-test-tools`);
  process.exit(1);
}
const { status } = spawnSync(ruff, ['check', 'src', 'test'], { cwd: root, stdio: 'inherit' });
process.exit(status ?? 1);
