// Chooses the blob store from QUIRE_STORAGE_URL. S3 loads its SDK through a dynamic import here, so
// the embedded local-disk default never loads it.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parseS3Url } from '../config/storage-url.js';
import { LocalBlobStore } from './local.js';
import type { BlobStore } from './types.js';

export interface OpenBlobStoreOptions {
  /** Signs local temporary links; every API process serving the same files must share it. */
  secret: Buffer | string;
  /** Absolute origin for links; relative links when empty. */
  publicBaseUrl?: string;
}

const FILE = 'file://';

/**
 * `file://<dir>` (relative to the working directory, or `file:///abs/dir`; the directory is created)
 * or `s3://bucket/prefix?endpoint=…&region=…&force_path_style=true` (credentials from the AWS chain).
 */
export async function openBlobStore(url: string, options: OpenBlobStoreOptions): Promise<BlobStore> {
  if (url.startsWith(FILE)) {
    const dir = decodeURIComponent(url.slice(FILE.length));
    if (dir === '') throw new Error('file:// storage URL has no directory');
    const root = path.resolve(dir);
    // 0700: results are customers' documents; nothing else on the host needs to read them.
    await mkdir(root, { recursive: true, mode: 0o700 });
    return new LocalBlobStore(root, options);
  }
  if (url.startsWith('s3://')) {
    const location = parseS3Url(url);
    const { S3BlobStore } = await import('./s3.js');
    return new S3BlobStore(location);
  }
  const scheme = url.includes(':') ? url.slice(0, url.indexOf(':')) : url;
  throw new Error(`Unsupported storage URL scheme "${scheme}"; use file://<dir> or s3://<bucket>/<prefix>`);
}
