// Packs several result files into one ZIP of stored entries, streamed file by file to disk
// (results can be large), with ZIP64 records where a size or offset passes 4 GiB (APPNOTE 6.3.10).
import { open, stat } from 'node:fs/promises';
import zlib from 'node:zlib';

export interface ZipEntry {
  /** The file on disk. */
  path: string;
  /** The entry name inside the archive (already sanitized, no directories). */
  name: string;
}

const CHUNK_BYTES = 1024 * 1024;
/** Past this, a size or offset lives in the ZIP64 extra field and the classic field says 0xFFFFFFFF. */
const MAX32 = 0xffff_ffff;
const MAX_ENTRIES16 = 0xffff;
/** Version needed (APPNOTE 4.4.3.2): 2.0 for stored files, 4.5 for ZIP64. */
const needed = (zip64: boolean) => (zip64 ? 45 : 20);
/** Made by Unix (high byte 3) at 4.5, so readers restore the file mode. */
const MADE_BY = (3 << 8) | 45;
/** General purpose bit 11: names are UTF-8. */
const UTF8 = 0x0800;

/**
 * CRC-32 of the entries: zlib's native one (Node ≥ 20.15) is ~40× faster than a JS table, which
 * cost ~50 ms of CPU per 7 MB of rendered pages, a sixth of rendering them.
 */
const crc32: (data: Uint8Array, value?: number) => number =
  (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32 ?? tableCrc32;

interface Written {
  name: Buffer;
  crc: number;
  size: number;
  offset: number;
  mode: number;
  dos: { time: number; date: number };
}

/**
 * Entries are stored, not deflated: PDFs and images are compressed inside already, so deflate costs
 * CPU for a percent or two. Duplicate names get a numeric suffix so no entry is shadowed.
 */
export async function writeZip(
  entries: readonly ZipEntry[],
  output: string,
  signal?: AbortSignal,
): Promise<void> {
  const out = await open(output, 'w', 0o600);
  try {
    const used = new Set<string>();
    const written: Written[] = [];
    let offset = 0;
    for (const entry of entries) {
      signal?.throwIfAborted();
      const info = await stat(entry.path);
      const name = Buffer.from(uniqueName(entry.name, used), 'utf8');
      const header = localHeader(name, info.size, dosTime(info.mtime));
      // The CRC is known only once the data is read: the header is rewritten in place after it.
      await out.write(header, 0, header.length, offset);
      const crc = await copy(entry.path, out, offset + header.length, signal);
      header.writeUInt32LE(crc, 14);
      await out.write(header, 0, header.length, offset);
      written.push({ name, crc, size: info.size, offset, mode: info.mode, dos: dosTime(info.mtime) });
      offset += header.length + info.size;
    }
    const central = Buffer.concat(written.map(centralHeader));
    await out.write(central, 0, central.length, offset);
    const end = endRecords(written.length, central.length, offset);
    await out.write(end, 0, end.length, offset + central.length);
  } finally {
    await out.close();
  }
}

/** Copies `file` into `out` at `position` and returns its CRC-32. */
async function copy(
  file: string,
  out: Awaited<ReturnType<typeof open>>,
  position: number,
  signal?: AbortSignal,
): Promise<number> {
  const input = await open(file, 'r');
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let crc = 0;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await input.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) return crc;
      const chunk = buffer.subarray(0, bytesRead);
      crc = crc32(chunk, crc);
      await out.write(chunk, 0, bytesRead, position);
      position += bytesRead;
    }
  } finally {
    await input.close();
  }
}

function localHeader(name: Buffer, size: number, dos: { time: number; date: number }): Buffer {
  const zip64 = size >= MAX32;
  const header = Buffer.alloc(30 + name.length + (zip64 ? 20 : 0));
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(needed(zip64), 4);
  header.writeUInt16LE(UTF8, 6);
  header.writeUInt16LE(0, 8); // stored
  header.writeUInt16LE(dos.time, 10);
  header.writeUInt16LE(dos.date, 12);
  header.writeUInt32LE(zip64 ? MAX32 : size, 18);
  header.writeUInt32LE(zip64 ? MAX32 : size, 22);
  header.writeUInt16LE(name.length, 26);
  header.writeUInt16LE(zip64 ? 20 : 0, 28);
  name.copy(header, 30);
  if (zip64) {
    const extra = 30 + name.length;
    header.writeUInt16LE(0x0001, extra);
    header.writeUInt16LE(16, extra + 2);
    header.writeBigUInt64LE(BigInt(size), extra + 4);
    header.writeBigUInt64LE(BigInt(size), extra + 12);
  }
  return header;
}

function centralHeader(entry: Written): Buffer {
  // The ZIP64 extra holds, in this order, only the fields whose classic slot says 0xFFFFFFFF.
  const big = [entry.size >= MAX32, entry.size >= MAX32, entry.offset >= MAX32];
  const values = [entry.size, entry.size, entry.offset].filter((_, i) => big[i]);
  const extraLength = values.length > 0 ? 4 + 8 * values.length : 0;
  const header = Buffer.alloc(46 + entry.name.length + extraLength);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(MADE_BY, 4);
  header.writeUInt16LE(needed(values.length > 0), 6);
  header.writeUInt16LE(UTF8, 8);
  header.writeUInt16LE(0, 10);
  header.writeUInt16LE(entry.dos.time, 12);
  header.writeUInt16LE(entry.dos.date, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(big[0] ? MAX32 : entry.size, 20);
  header.writeUInt32LE(big[1] ? MAX32 : entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  header.writeUInt16LE(extraLength, 30);
  header.writeUInt32LE(((entry.mode & 0xffff) << 16) >>> 0, 38);
  header.writeUInt32LE(big[2] ? MAX32 : entry.offset, 42);
  entry.name.copy(header, 46);
  if (extraLength > 0) {
    const at = 46 + entry.name.length;
    header.writeUInt16LE(0x0001, at);
    header.writeUInt16LE(8 * values.length, at + 2);
    for (const [i, value] of values.entries()) header.writeBigUInt64LE(BigInt(value), at + 4 + 8 * i);
  }
  return header;
}

/** The end of central directory record, preceded by the ZIP64 record and locator when needed. */
function endRecords(count: number, centralSize: number, centralOffset: number): Buffer {
  const zip64 = count >= MAX_ENTRIES16 || centralSize >= MAX32 || centralOffset >= MAX32;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? MAX_ENTRIES16 : count, 8);
  end.writeUInt16LE(zip64 ? MAX_ENTRIES16 : count, 10);
  end.writeUInt32LE(zip64 ? MAX32 : centralSize, 12);
  end.writeUInt32LE(zip64 ? MAX32 : centralOffset, 16);
  if (!zip64) return end;
  const record = Buffer.alloc(56 + 20);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(MADE_BY, 12);
  record.writeUInt16LE(needed(true), 14);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(centralSize), 40);
  record.writeBigUInt64LE(BigInt(centralOffset), 48);
  record.writeUInt32LE(0x07064b50, 56);
  record.writeBigUInt64LE(BigInt(centralOffset + centralSize), 64);
  record.writeUInt32LE(1, 72);
  return Buffer.concat([record, end]);
}

/** MS-DOS date and time (local time, 2-second steps), as every ZIP reader expects. */
function dosTime(date: Date): { time: number; date: number } {
  const year = Math.max(1980, date.getFullYear());
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | Math.floor(date.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let i = 2; used.has(candidate); i++) candidate = `${stem}-${i}${ext}`;
  used.add(candidate);
  return candidate;
}

let table: Uint32Array | undefined;

/** The reflected CRC-32 of zlib, for Node releases before zlib.crc32 (20.15). */
function tableCrc32(data: Uint8Array, value = 0): number {
  table ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = ~value >>> 0;
  for (const byte of data) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}
