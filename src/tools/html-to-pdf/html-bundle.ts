// Unpacks an uploaded site (a ZIP with index.html and its assets) into a private folder, refusing
// anything that could write outside it or exhaust the disk: path traversal, absolute names,
// symlinks, too many entries, too many bytes. yauzl also checks each entry's declared size.
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { QuireError } from '../../errors/quire-error.js';

export interface BundleLimits {
  maxEntries: number;
  maxTotalBytes: number;
}

/** A page with its styles, scripts, images and fonts; far above any real page, far below a disk. */
export const DEFAULT_BUNDLE_LIMITS: BundleLimits = { maxEntries: 2_000, maxTotalBytes: 200 * 1024 * 1024 };

/** S_IFMT bits of the Unix mode stored in the upper half of a ZIP entry's external attributes. */
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

const refuse = (detail: string) => new QuireError('unsupported_file', detail);

/** The safe relative path of an entry, or an error: no `..`, no absolute or drive paths, no NUL. */
export function entryPath(name: string): string {
  if (name.includes('\0') || name.includes('\\') || /^[a-zA-Z]:/.test(name) || name.startsWith('/'))
    throw refuse(`The ZIP holds an unsafe entry name: ${JSON.stringify(name.slice(0, 100))}`);
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..') || parts.length === 0)
    throw refuse(`The ZIP holds an unsafe entry name: ${JSON.stringify(name.slice(0, 100))}`);
  return parts.join('/');
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true }, (err, zip) =>
      err || !zip ? reject(refuse('The ZIP archive is damaged')) : resolve(zip),
    );
  });
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) =>
      err || !stream ? reject(refuse('The ZIP archive is damaged')) : resolve(stream),
    );
  });
}

/**
 * Extracts `file` into `dir` (which must be empty) and returns the page to open: `index.html` at
 * the top, or inside the archive's single top folder (how "compress this folder" zips look).
 */
export async function extractSite(
  file: string,
  dir: string,
  limits = DEFAULT_BUNDLE_LIMITS,
): Promise<string> {
  const zip = await openZip(file);
  const names: string[] = [];
  let total = 0;
  // One byte budget across all entries, counted as bytes are really inflated (sizes can lie).
  const budget = () =>
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        total += chunk.length;
        const over = total > limits.maxTotalBytes;
        done(over ? refuse(`The ZIP unpacks to more than ${limits.maxTotalBytes} bytes`) : null, chunk);
      },
    });
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', () => reject(refuse('The ZIP archive is damaged')));
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        void (async () => {
          if (names.length >= limits.maxEntries)
            throw refuse(`The ZIP has more than ${limits.maxEntries} entries`);
          const isDir = entry.fileName.endsWith('/');
          const relative = entryPath(entry.fileName);
          if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK)
            throw refuse('The ZIP holds a symbolic link');
          const target = path.join(dir, relative);
          if (isDir) {
            await mkdir(target, { recursive: true });
          } else {
            await mkdir(path.dirname(target), { recursive: true });
            const stream = await openEntry(zip, entry);
            // `wx` never overwrites, so a repeated name is refused rather than replacing a file.
            await pipeline(stream, budget(), createWriteStream(target, { flags: 'wx', mode: 0o600 })).catch(
              (err: unknown) => {
                throw err instanceof QuireError
                  ? err
                  : refuse('The ZIP holds a repeated or unreadable entry');
              },
            );
            names.push(relative);
          }
          zip.readEntry();
        })().catch(reject);
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return pickEntry(names);
}

function pickEntry(names: readonly string[]): string {
  if (names.includes('index.html')) return 'index.html';
  const tops = new Set(names.map((n) => n.split('/')[0]));
  const [only] = [...tops];
  if (tops.size === 1 && only && names.includes(`${only}/index.html`)) return `${only}/index.html`;
  throw refuse('The ZIP has no index.html at its top level');
}
