// The entries of a ZIP result, read from the end of the file only (its central directory, fetched by
// Range from the temporary link): names and sizes, with no archive library and no whole download.
import { useEffect, useState } from 'preact/hooks';
import { bytes } from './format.js';

interface Entry {
  name: string;
  size: number;
}

/** The end-of-central-directory record sits in the last 22 bytes plus a comment of up to 64 KiB. */
const TAIL_BYTES = 22 + 65_535;

async function range(url: string, start: number, end: number): Promise<DataView> {
  const response = await fetch(url, { headers: { Range: `bytes=${start}-${end}` } });
  if (!response.ok) throw new Error(`the result answered ${response.status}`);
  return new DataView(await response.arrayBuffer());
}

export async function zipEntries(url: string, size: number): Promise<Entry[]> {
  const tailStart = Math.max(0, size - TAIL_BYTES);
  const tail = await range(url, tailStart, size - 1);
  let eocd = -1;
  for (let i = tail.byteLength - 22; i >= 0; i--)
    if (tail.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw new Error('not a ZIP archive');
  const count = tail.getUint16(eocd + 10, true);
  const dirSize = tail.getUint32(eocd + 12, true);
  const dirOffset = tail.getUint32(eocd + 16, true);
  const dir =
    dirOffset >= tailStart
      ? new DataView(tail.buffer, dirOffset - tailStart, dirSize)
      : await range(url, dirOffset, dirOffset + dirSize - 1);
  const names = new TextDecoder();
  const entries: Entry[] = [];
  for (let at = 0, n = 0; n < count && at + 46 <= dir.byteLength; n++) {
    if (dir.getUint32(at, true) !== 0x02014b50) break;
    const nameLength = dir.getUint16(at + 28, true);
    const skip = nameLength + dir.getUint16(at + 30, true) + dir.getUint16(at + 32, true);
    const name = names.decode(new Uint8Array(dir.buffer, dir.byteOffset + at + 46, nameLength));
    entries.push({ name, size: dir.getUint32(at + 24, true) });
    at += 46 + skip;
  }
  return entries;
}

export function ZipListing({ url, size }: { url: string; size: number }) {
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [failure, setFailure] = useState('');
  useEffect(() => {
    zipEntries(url, size).then(setEntries, (error: Error) => setFailure(error.message));
  }, [url, size]);
  if (failure) return <p role="alert">Could not list the archive: {failure}</p>;
  if (!entries) return <p role="status">Reading the archive…</p>;
  return (
    <>
      <h3>In this ZIP ({entries.length} files)</h3>
      <ul class="zip-entries" aria-label="Files in the ZIP">
        {entries.map((entry) => (
          <li key={entry.name}>
            {entry.name} <span class="muted">{bytes(entry.size)}</span>
          </li>
        ))}
      </ul>
    </>
  );
}
