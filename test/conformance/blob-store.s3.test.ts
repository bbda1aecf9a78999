// Runs the blob-store conformance suite on the S3 store against a real S3-compatible server
// (SeaweedFS on loopback), checking each presigned link by fetching it from that server; plus what
// only S3 promises: bounded memory for large puts, aborted multipart uploads, server-side expiry.
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { GetObjectCommand, ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { attachmentDisposition } from '../../src/blobs/content-disposition.js';
import { openBlobStore } from '../../src/blobs/open.js';
import type { BlobStore } from '../../src/blobs/types.js';
import { type S3TestServer, startS3Server } from '../support/s3-server.js';
import { describeBlobStoreConformance, type TemporaryUrlFacts } from './blob-store.suite.js';

const MiB = 1024 * 1024;
const secret = 'unused-by-s3-but-required-0123456789';
const run = `run-${randomUUID()}`;
let stores = 0;
let s3: S3TestServer;

beforeAll(async () => {
  s3 = await startS3Server();
  // The store takes credentials from the SDK's chain, as in production: here, the environment.
  Object.assign(process.env, s3.env);
}, 60_000);
afterAll(() => s3?.stop());

const openStore = (): Promise<BlobStore> =>
  openBlobStore(s3.storageUrl(`${run}/store-${++stores}`), { secret });

/** `20261121T120000Z` → epoch ms. */
function amzDate(value: string | null): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!m) return Number.NaN;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
}

/**
 * Facts come from what the server serves, not from the URL's text: the body must equal the object
 * read straight from the bucket, the headers must be the contract's, a Range must give 206, and
 * changing any signed part of the URL must give 403.
 */
async function inspectPresignedUrl(url: string, now: number): Promise<TemporaryUrlFacts | undefined> {
  const parsed = new URL(url);
  if (parsed.origin !== s3.endpoint) return undefined;
  const expiresAt =
    amzDate(parsed.searchParams.get('X-Amz-Date')) + Number(parsed.searchParams.get('X-Amz-Expires')) * 1000;
  // Expiry in the future of the real clock cannot be shown by the server; the URL's signed fields
  // are what it enforces (the expiry test below shows it does).
  if (!(now < expiresAt)) return undefined;
  const response = await fetch(url);
  if (response.status !== 200) return undefined;
  const body = Buffer.from(await response.arrayBuffer());
  const objectKey = decodeURIComponent(parsed.pathname).slice(`/${s3.bucket}/`.length);
  const direct = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: objectKey }));
  expect(body.equals(await buffer(direct.Body as Readable))).toBe(true);
  expect(Number(response.headers.get('content-length'))).toBe(body.length);
  expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
  expect(response.headers.get('accept-ranges')).toBe('bytes');
  expect(response.headers.get('cache-control')).toBe('private, no-store');

  const ranged = await fetch(url, { headers: { range: 'bytes=1-3' } });
  expect(ranged.status).toBe(206);
  expect(ranged.headers.get('content-range')).toBe(`bytes 1-3/${body.length}`);
  expect(Buffer.from(await ranged.arrayBuffer()).equals(body.subarray(1, 4))).toBe(true);

  const signature = parsed.searchParams.get('X-Amz-Signature')!;
  const tampered = new URL(url);
  tampered.searchParams.set('X-Amz-Signature', (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1));
  expect((await fetch(tampered)).status).toBe(403);
  const retyped = new URL(url);
  retyped.searchParams.set('response-content-type', 'text/html');
  expect((await fetch(retyped)).status).toBe(403);

  const disposition = response.headers.get('content-disposition') ?? '';
  const encoded = /filename\*=UTF-8''([^;]+)$/.exec(disposition)?.[1];
  if (encoded === undefined) return undefined;
  const filename = decodeURIComponent(encoded);
  // The quoted ASCII fallback must be the one the local route sends for the same name.
  expect(disposition).toBe(attachmentDisposition(filename));
  const key = objectKey.replace(new RegExp(`^${run}/store-\\d+/`), '');
  return { key, expiresAt, filename, contentType: response.headers.get('content-type') ?? '' };
}

describeBlobStoreConformance('S3 (SeaweedFS)', openStore, {
  inspectTemporaryUrl: inspectPresignedUrl,
  expiresAtResolutionMs: 1000,
});

/** `total` bytes in 1 MiB chunks, each different, made on demand: the producer holds one chunk. */
function* generated(total: number): Generator<Buffer> {
  for (let offset = 0; offset < total; offset += MiB) {
    const chunk = Buffer.alloc(Math.min(MiB, total - offset), offset / MiB);
    chunk.writeUInt32BE(offset / MiB, 0);
    yield chunk;
  }
}

describe('S3 specifics', () => {
  test('a 256 MiB put streams in bounded memory and is stored as a multipart object', async () => {
    const total = 256 * MiB;
    const expected = createHash('sha256');
    for (const chunk of generated(total)) expected.update(chunk);
    const store = await openStore();
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const started = performance.now();
    const stored = await store
      .put('big', Readable.from(generated(total)))
      .finally(() => clearInterval(sampler));
    const seconds = (performance.now() - started) / 1000;
    const growthMiB = (peak - baseline) / MiB;
    console.info(`256 MiB put: ${seconds.toFixed(1)} s, RSS growth ${growthMiB.toFixed(0)} MiB`);
    expect(stored).toEqual({ size: total, sha256: expected.digest('hex') });
    expect(growthMiB).toBeLessThan(100);
    const info = await store.stat('big');
    expect(info?.size).toBe(total);
    // A multipart object's ETag is the MD5 of its parts' MD5s with the part count appended.
    expect(info?.etag).toMatch(/^"[0-9a-f]+-\d+"$/);
    await store.delete('big');
  }, 90_000);

  test('a put that fails after several parts aborts its multipart upload', async () => {
    const store = await openStore();
    const failing = Readable.from(
      (function* () {
        yield* generated(20 * MiB);
        throw new Error('client went away late');
      })(),
    );
    await expect(store.put('jobs/job_9/input-0', failing)).rejects.toThrow('client went away late');
    expect(await store.stat('jobs/job_9/input-0')).toBeUndefined();
    const uploads = await s3.client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket, Prefix: run }));
    expect(uploads.Uploads ?? []).toEqual([]);
  });

  test('the server refuses a presigned link once it has expired', async () => {
    const store = await openStore();
    await store.put('short', Readable.from([Buffer.from('%PDF-1.7')]));
    const url = await store.temporaryUrl('short', {
      expiresAt: Date.now() + 2_000,
      filename: 'a.pdf',
      contentType: 'application/pdf',
    });
    expect((await fetch(url)).status).toBe(200);
    const parsed = new URL(url);
    const expiresAt =
      amzDate(parsed.searchParams.get('X-Amz-Date')) +
      Number(parsed.searchParams.get('X-Amz-Expires')) * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 1_100));
    expect((await fetch(url)).status).toBe(403);
  });

  test('links asked for beyond seven days are signed for S3’s seven-day maximum', async () => {
    const store = await openStore();
    const url = new URL(
      await store.temporaryUrl('x', {
        expiresAt: Date.now() + 30 * 24 * 3600_000,
        filename: 'a.pdf',
        contentType: 'application/pdf',
      }),
    );
    expect(url.searchParams.get('X-Amz-Expires')).toBe(String(7 * 24 * 3600));
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(new RegExp(`^${s3.accessKeyId}/`));
  });

  test('ping fails for a bucket that does not exist', async () => {
    const store = await openBlobStore(
      s3.storageUrl('x').replace(`s3://${s3.bucket}/`, 's3://no-such-bucket/'),
      {
        secret,
      },
    );
    await expect(store.ping()).rejects.toThrow();
  });
});
