// Packs several result files into one ZIP (yazl, streamed to disk: results can be large).
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { displayFileName } from '../../model/file-name.js';

export interface ZipEntry {
  /** The file on disk. */
  path: string;
  /** The entry name inside the archive (no directories; hidden characters are removed here). */
  name: string;
}

/**
 * PDFs are already deflate-compressed inside, so entries are stored, not deflated again: that
 * costs CPU for a percent or two. Duplicate names get a numeric suffix so no entry is shadowed.
 */
export async function writeZip(
  entries: readonly ZipEntry[],
  output: string,
  signal?: AbortSignal,
): Promise<void> {
  const zip = new yazl.ZipFile();
  const used = new Set<string>();
  for (const entry of entries) {
    zip.addFile(entry.path, uniqueName(displayFileName(entry.name, 'file'), used), { compress: false });
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(output, { mode: 0o600 }), signal ? { signal } : {});
}

function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let i = 2; used.has(candidate); i++) candidate = `${stem}-${i}${ext}`;
  used.add(candidate);
  return candidate;
}
