// The big input of the 300 MB merge rows, made once per machine by big-pdf.py (PyMuPDF's venv) and
// kept in the OS temp folder between runs: generating it takes longer than the rows it serves.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './paths.js';

const TARGET_MIB = 300;
const PYTHON = '/opt/quire-pymupdf/bin/python';

export function bigMergeInput(): { file: string; mib: number } {
  const file = path.join(os.tmpdir(), `quire-bench-merge-${TARGET_MIB}mib.pdf`);
  if (!existsSync(file) || statSync(file).size < TARGET_MIB * 1024 * 1024) {
    const partial = `${file}.partial`;
    execFileSync(PYTHON, [path.join(repoRoot, 'bench/support/big-pdf.py'), partial, String(TARGET_MIB)]);
    execFileSync('mv', [partial, file]);
  }
  return { file, mib: statSync(file).size / (1024 * 1024) };
}
