// What the TypeScript SDK's tests share: the SDK from source, its package directory, a throwaway
// directory per test file, and the package compiled once per file for programs run as child processes.
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../support/corpus.js';

export const sdkDir = path.join(repoRoot, 'clients', 'typescript');

export function scratchDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), `quire-sdk-${prefix}-`));
}

/**
 * Compiles the package with its own tsc into a directory of its own inside the package (so the
 * compiled files resolve the package's node_modules) and returns that directory. One per caller,
 * so test files running side by side never write the same files.
 */
export async function buildSdk(tag: string): Promise<string> {
  const outDir = path.join(sdkDir, `.build-${tag}-${process.pid}`);
  await promisify(execFile)(
    process.execPath,
    [
      path.join(sdkDir, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      sdkDir,
      '--outDir',
      outDir,
      '--declaration',
      'false',
      '--sourceMap',
      'false',
    ],
    { cwd: sdkDir },
  );
  return outDir;
}

/**
 * A valid one-page PDF of about `bytes` bytes: its bulk is one unreferenced stream of zeros, written
 * as a hole in a sparse file, so making a GiB costs no time and no disk until someone copies it.
 * qpdf opens it (the fake tool checks its output with qpdf) without reading the stream.
 */
export async function bigPdf(file: string, bytes: number): Promise<string> {
  const { open } = await import('node:fs/promises');
  const head = '%PDF-1.4\n';
  const objects = [
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n',
    '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n',
    '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n',
  ];
  const offsets: number[] = [];
  let at = head.length;
  for (const object of objects) {
    offsets.push(at);
    at += object.length;
  }
  offsets.push(at);
  const layout = (padding: number) => {
    const streamHead = `4 0 obj\n<< /Length ${padding} >>\nstream\n`;
    const streamStart = at + streamHead.length;
    const streamEnd = '\nendstream\nendobj\n';
    const xrefAt = streamStart + padding + streamEnd.length;
    const xref = `xref\n0 5\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
    const tail = `${streamEnd}${xref}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    return { streamHead, streamStart, tail, total: streamStart + padding + tail.length };
  };
  // Twice: the padding's digit count changes the lengths around it at most once.
  let padding = bytes - layout(0).total;
  padding += bytes - layout(padding).total;
  const { streamHead, streamStart, tail } = layout(padding);
  const handle = await open(file, 'w');
  try {
    await handle.write(head + objects.join('') + streamHead, 0);
    await handle.write(tail, streamStart + padding);
  } finally {
    await handle.close();
  }
  return file;
}
