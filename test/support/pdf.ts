// Inspecting results with the real tools, never byte equality: page counts, qpdf --check, text, rotation.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import yazl from 'yazl';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-'));
let counter = 0;

/** Writes bytes to a scratch file so command-line tools can read them. */
export function toFile(bytes: Buffer, extension = '.pdf'): string {
  const file = path.join(scratch, `f${counter++}${extension}`);
  writeFileSync(file, bytes);
  return file;
}

export function pageCount(file: string): number {
  return Number(execFileSync('qpdf', ['--show-npages', file]).toString().trim());
}

/** True when `qpdf --check` finds no errors (exit 0, or 3 = warnings only). */
export function qpdfCheckPasses(file: string): boolean {
  const result = spawnSync('qpdf', ['--check', file]);
  return result.status === 0 || result.status === 3;
}

export function pageText(file: string, page?: number): string {
  const range = page === undefined ? [] : ['-f', String(page), '-l', String(page)];
  return execFileSync('pdftotext', [...range, file, '-']).toString();
}

/** Effective /Rotate of every page (inherited values included), as poppler reports it. */
export function rotations(file: string): number[] {
  const pages = pageCount(file);
  const info = execFileSync('pdfinfo', ['-f', '1', '-l', String(pages), file]).toString();
  return [...info.matchAll(/^Page\s+\d+\s+rot:\s+(\d+)/gm)].map((m) => Number(m[1]));
}

export function requiresPassword(file: string): boolean {
  return spawnSync('qpdf', ['--requires-password', file]).status === 0;
}

/** A ZIP of `entries` (name → bytes), in their order; `mimetype` stored, as ODF readers expect it. */
export function zipOf(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries))
    zip.addBuffer(Buffer.from(data), name, { compress: name !== 'mimetype' });
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** Entries of a ZIP: name → bytes. */
export function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const entries = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(err);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}
