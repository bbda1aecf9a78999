// Runs the blob-store conformance suite on local disk, plus what only the local store promises:
// files stay under the root, temp files and empty directories do not linger, and uploads on the
// same disk are hard links rather than copies.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, test } from 'vitest';
import { openBlobStore } from '../../src/blobs/open.js';
import { verifyFileToken } from '../../src/blobs/signed-url.js';
import { describeBlobStoreConformance } from './blob-store.suite.js';

const secret = Buffer.from('0123456789abcdef0123456789abcdef');
const base = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-blobs-'));
let stores = 0;
const freshRoot = () => path.join(base, `store-${++stores}`);

afterAll(() => fs.rm(base, { recursive: true, force: true }));

/** Every file under `dir`, relative, so tests can assert exactly what is on disk. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
}

describeBlobStoreConformance('local disk', () => openBlobStore(`file://${freshRoot()}`, { secret }), {
  inspectTemporaryUrl(url, now) {
    const match = /^\/api\/v1\/files\/([^/?#]+)$/.exec(url);
    return match?.[1] ? verifyFileToken(match[1], secret, now) : undefined;
  },
});

describe('local disk specifics', () => {
  test('objects live at their key under the root and deletes prune empty directories', async () => {
    const root = freshRoot();
    const store = await openBlobStore(`file://${root}`, { secret });
    await store.put('jobs/job_1/input-0', Readable.from([Buffer.from('a')]));
    await store.put('jobs/job_2/result', Readable.from([Buffer.from('b')]));
    expect(await filesUnder(root)).toEqual([
      'jobs',
      'jobs/job_1',
      'jobs/job_1/input-0',
      'jobs/job_2',
      'jobs/job_2/result',
    ]);
    await store.delete('jobs/job_1/input-0');
    expect(await filesUnder(root)).toEqual(['jobs', 'jobs/job_2', 'jobs/job_2/result']);
    await store.delete('jobs/job_2/result');
    expect(await filesUnder(root)).toEqual([]);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  test('a failed put leaves no temporary file behind', async () => {
    const root = freshRoot();
    const store = await openBlobStore(`file://${root}`, { secret });
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1024));
        this.destroy(new Error('reset'));
      },
    });
    await expect(store.put('jobs/job_1/input-0', failing)).rejects.toThrow('reset');
    expect((await filesUnder(root)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('writes after the first take a file and a job folder made ahead beside the root', async () => {
    const root = freshRoot();
    const store = await openBlobStore(`file://${root}`, { secret });
    const ahead = path.join(path.dirname(root), `.${path.basename(root)}-ahead-${process.pid}`);
    await store.put('jobs/job_1/input-0', Readable.from([Buffer.from('first')]));
    const made = async () => (await fs.readdir(ahead).catch(() => [])).length;
    // Four files and two folders, made on a pool thread, and the empty file the files are copies of.
    for (let i = 0; i < 100 && (await made()) < 7; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await made()).toBe(7);
    const inodes = await Promise.all(
      (await fs.readdir(ahead))
        .filter((f) => f !== 'empty')
        .map(async (f) => (await fs.stat(path.join(ahead, f))).ino),
    );
    expect(inodes).toHaveLength(6);
    await store.put('jobs/job_2/input-0', Readable.from([Buffer.from('second')]));
    const written = path.join(root, 'jobs/job_2/input-0');
    expect(inodes).toContain((await fs.stat(written)).ino);
    expect(inodes).toContain((await fs.stat(path.dirname(written))).ino);
    expect(await fs.readFile(written, 'utf8')).toBe('second');
    expect(await filesUnder(root)).toEqual([
      'jobs',
      'jobs/job_1',
      'jobs/job_1/input-0',
      'jobs/job_2',
      'jobs/job_2/input-0',
    ]);
    expect(await made()).toBeLessThanOrEqual(7);
  });

  test('a folder of files made ahead by a process that is gone is removed when a store opens', async () => {
    const root = freshRoot();
    const gone = spawnSync('true').pid!;
    const left = path.join(path.dirname(root), `.${path.basename(root)}-ahead-${gone}`);
    await fs.mkdir(left);
    await fs.writeFile(path.join(left, 'stale'), '');
    await openBlobStore(`file://${root}`, { secret });
    await expect(fs.stat(left)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('upload on the same disk is a hard link, not a copy', async () => {
    const root = freshRoot();
    const store = await openBlobStore(`file://${root}`, { secret });
    const source = path.join(base, 'work-output.pdf');
    await fs.writeFile(source, 'result bytes');
    await store.upload('jobs/job_1/result', source);
    const [a, b] = await Promise.all([fs.stat(source), fs.stat(path.join(root, 'jobs/job_1/result'))]);
    expect(b.ino).toBe(a.ino);
  });

  test('upload over an existing object replaces it whole, still by a hard link, with no temp left', async () => {
    const root = freshRoot();
    const store = await openBlobStore(`file://${root}`, { secret });
    await store.put('jobs/job_1/result', Readable.from([Buffer.from('first attempt')]));
    const source = path.join(base, 'retry-output.pdf');
    await fs.writeFile(source, 'second attempt');
    expect(await store.upload('jobs/job_1/result', source)).toEqual({ size: 14 });
    const [a, b] = await Promise.all([fs.stat(source), fs.stat(path.join(root, 'jobs/job_1/result'))]);
    expect(b.ino).toBe(a.ino);
    expect(await filesUnder(root)).toEqual(['jobs', 'jobs/job_1', 'jobs/job_1/result']);
  });

  test('reads stream in chunks of at most 1 MiB, so a large object is never held whole', async () => {
    const root = freshRoot();
    const store = await openBlobStore(`file://${root}`, { secret });
    const body = Buffer.alloc(3 * 1024 * 1024 + 5, 7);
    await store.put(
      'jobs/job_1/input-0',
      Readable.from([body.subarray(0, 2_000_000), body.subarray(2_000_000)]),
    );
    const sizes: number[] = [];
    for await (const chunk of await store.get('jobs/job_1/input-0')) sizes.push((chunk as Buffer).length);
    expect(sizes.reduce((x, y) => x + y, 0)).toBe(body.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1024 * 1024);
    // Fewer, larger reads than Node's 64 KiB default: the download path's file-system calls.
    expect(sizes.length).toBeLessThanOrEqual(4);
  });

  test('a 128 MiB put of socket-sized chunks streams in bounded memory', async () => {
    const store = await openBlobStore(`file://${freshRoot()}`, { secret });
    const total = 128 * 1024 * 1024;
    const chunk = randomBytes(64 * 1024);
    let sent = 0;
    // A fresh buffer per chunk, as a socket gives: memory grows unless the store lets them go.
    const body = new Readable({
      read() {
        this.push(sent < total ? Buffer.from(chunk) : null);
        sent += chunk.length;
      },
    });
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    const stored = await store.put('big', body, { sha256: false }).finally(() => clearInterval(sampler));
    expect(stored).toEqual({ size: total });
    expect((peak - baseline) / (1024 * 1024)).toBeLessThan(48);
    expect((await store.stat('big'))?.size).toBe(total);
  }, 60_000);

  test('temporary links are absolute under the public base URL and accepted by a second store', async () => {
    const root = freshRoot();
    const api1 = await openBlobStore(`file://${root}`, { secret, publicBaseUrl: 'https://pdf.example.com/' });
    const api2 = await openBlobStore(`file://${root}`, { secret: secret.toString() });
    const expiresAt = Date.now() + 60_000;
    const url = await api1.temporaryUrl('jobs/job_1/result', {
      expiresAt,
      filename: 'a.pdf',
      contentType: 'application/pdf',
    });
    const match = /^https:\/\/pdf\.example\.com\/api\/v1\/files\/([A-Za-z0-9_.-]+)$/.exec(url);
    expect(match).not.toBeNull();
    // Same secret, another process: the token verifies the same way.
    expect(verifyFileToken(match![1]!, secret.toString())).toMatchObject({ key: 'jobs/job_1/result' });
    expect(await api2.temporaryUrl('x', { expiresAt, filename: 'a', contentType: 'b' })).toMatch(
      /^\/api\/v1\/files\//,
    );
  });

  test('unknown storage schemes are refused with the scheme named, malformed S3 URLs with the fault', async () => {
    await expect(openBlobStore('s3://Not_A_Bucket/prefix', { secret })).rejects.toThrow(/bucket name/);
    await expect(openBlobStore('ftp://host/x', { secret })).rejects.toThrow(/"ftp"/);
  });
});
