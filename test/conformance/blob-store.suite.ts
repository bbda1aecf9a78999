// The blob-store conformance suite: every BlobStore (local disk, S3) runs it unchanged.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BlobNotFoundError, InvalidBlobKeyError } from '../../src/blobs/keys.js';
import type { BlobStore } from '../../src/blobs/types.js';

export interface TemporaryUrlFacts {
  key: string;
  expiresAt: number;
  filename: string;
  contentType: string;
}

export interface BlobConformanceOptions {
  /**
   * Reads back what a temporary URL grants, or undefined if it is not valid at `now`. May be async
   * (an S3 presigned URL is checked by fetching it from the server).
   */
  inspectTemporaryUrl: (
    url: string,
    now: number,
  ) => TemporaryUrlFacts | undefined | Promise<TemporaryUrlFacts | undefined>;
  /**
   * Links expire at expiresAt rounded down to this many milliseconds (S3 presigned URLs count whole
   * seconds: 1000); exact when absent. Never later than asked, so "invalid just after" still holds.
   */
  expiresAtResolutionMs?: number;
}

const MiB = 1024 * 1024;

/** A deterministic-length random body delivered in uneven chunks, as a network upload arrives. */
function chunkedBody(size: number): { bytes: Buffer; stream: () => Readable } {
  const bytes = randomBytes(size);
  return {
    bytes,
    stream: () =>
      Readable.from(
        (function* () {
          for (
            let offset = 0, step = 1;
            offset < size;
            offset += step, step = (step * 7 + 13) % 200_000 || 1
          ) {
            yield bytes.subarray(offset, Math.min(size, offset + step));
          }
        })(),
      ),
  };
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `open` returns an empty store on every call. */
export function describeBlobStoreConformance(
  name: string,
  open: () => Promise<BlobStore>,
  options: BlobConformanceOptions,
): void {
  describe(`blob store conformance: ${name}`, () => {
    let store: BlobStore;
    let scratch: string;
    beforeEach(async () => {
      store = await open();
      scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-blob-scratch-'));
    });
    afterEach(async () => {
      await fs.rm(scratch, { recursive: true, force: true });
    });

    test('put then get round-trips a multi-megabyte stream with its size and SHA-256', async () => {
      const body = chunkedBody(5 * MiB + 123);
      const stored = await store.put('jobs/job_1/input-0', body.stream());
      expect(stored).toEqual({ size: body.bytes.length, sha256: sha256(body.bytes) });
      const read = await buffer(await store.get('jobs/job_1/input-0'));
      expect(read.equals(body.bytes)).toBe(true);
      expect((await store.stat('jobs/job_1/input-0'))?.size).toBe(body.bytes.length);
    });

    test('get of a small object (a job-sized PDF, read whole by the local store) gives its exact bytes', async () => {
      const body = chunkedBody(78_000);
      await store.put('jobs/job_2/result-a', body.stream());
      const read = await buffer(await store.get('jobs/job_2/result-a'));
      expect(read.equals(body.bytes)).toBe(true);
      expect(read.length).toBe(78_000);
    });

    test('an empty stream makes an empty object', async () => {
      expect(await store.put('empty', Readable.from([]))).toEqual({
        size: 0,
        sha256: sha256(Buffer.alloc(0)),
      });
      expect((await buffer(await store.get('empty'))).length).toBe(0);
    });

    test('put without the SHA-256 stores the same bytes and returns only the size', async () => {
      const body = chunkedBody(3 * MiB + 5);
      const stored = await store.put('jobs/job_7/input-0', body.stream(), { sha256: false });
      expect(stored).toEqual({ size: body.bytes.length });
      const read = await buffer(await store.get('jobs/job_7/input-0'));
      expect(read.equals(body.bytes)).toBe(true);
    });

    test('get serves inclusive byte ranges: first byte, middle and last byte', async () => {
      const body = chunkedBody(300_000);
      await store.put('ranged', body.stream());
      const size = body.bytes.length;
      for (const range of [
        { start: 0, end: 0 },
        { start: 1000, end: 65_535 + 1000 },
        { start: size - 1, end: size - 1 },
        { start: 0, end: size - 1 },
      ]) {
        const read = await buffer(await store.get('ranged', range));
        expect(read.equals(body.bytes.subarray(range.start, range.end + 1))).toBe(true);
      }
    });

    test('stat gives a stable strong ETag that changes when the object is replaced', async () => {
      await store.put('tagged', Readable.from([Buffer.from('one')]));
      const first = await store.stat('tagged');
      expect(first?.etag).toMatch(/^"[^"]+"$/);
      expect(await store.stat('tagged')).toEqual(first);
      await store.put('tagged', Readable.from([Buffer.from('two!')]));
      const second = await store.stat('tagged');
      expect(second?.size).toBe(4);
      expect(second?.etag).not.toBe(first?.etag);
      expect((await buffer(await store.get('tagged'))).toString()).toBe('two!');
    });

    test('a missing object: stat is undefined, get and download reject with BlobNotFoundError', async () => {
      expect(await store.stat('jobs/none/result')).toBeUndefined();
      await expect(store.get('jobs/none/result')).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(store.download('jobs/none/result', path.join(scratch, 'x'))).rejects.toBeInstanceOf(
        BlobNotFoundError,
      );
    });

    test('delete removes the object and is idempotent', async () => {
      await store.put('jobs/job_2/result', Readable.from([Buffer.from('pdf')]));
      await store.put('jobs/job_2/input-0', Readable.from([Buffer.from('in')]));
      await store.delete('jobs/job_2/result');
      await store.delete('jobs/job_2/result');
      await store.delete('jobs/never/was');
      expect(await store.stat('jobs/job_2/result')).toBeUndefined();
      expect((await buffer(await store.get('jobs/job_2/input-0'))).toString()).toBe('in');
    });

    test('deletePrefix removes everything under the folder and nothing beside it', async () => {
      const put = (key: string) => store.put(key, Readable.from([Buffer.from(key)]));
      await put('jobs/job_3/input-0');
      await put('jobs/job_3/result-a');
      await put('jobs/job_3/result-b');
      // Same leading characters, different folder: must survive.
      await put('jobs/job_30/input-0');
      await put('jobs/job_3x');
      await store.deletePrefix('jobs/job_3');
      await store.deletePrefix('jobs/job_3');
      await store.deletePrefix('jobs/never');
      for (const gone of ['jobs/job_3/input-0', 'jobs/job_3/result-a', 'jobs/job_3/result-b']) {
        expect(await store.stat(gone), gone).toBeUndefined();
      }
      expect((await buffer(await store.get('jobs/job_30/input-0'))).toString()).toBe('jobs/job_30/input-0');
      expect((await buffer(await store.get('jobs/job_3x'))).toString()).toBe('jobs/job_3x');
      await expect(store.deletePrefix('../jobs')).rejects.toBeInstanceOf(InvalidBlobKeyError);
    });

    test('a stream that fails midway leaves no object and rejects', async () => {
      const failing = new Readable({
        read() {
          this.push(randomBytes(64 * 1024));
          this.destroy(new Error('client went away'));
        },
      });
      await expect(store.put('jobs/job_3/input-0', failing)).rejects.toThrow('client went away');
      expect(await store.stat('jobs/job_3/input-0')).toBeUndefined();
    });

    test('a failed replacement keeps the previous object whole', async () => {
      await store.put('kept', Readable.from([Buffer.from('original')]));
      const failing = new Readable({
        read() {
          this.destroy(new Error('broken'));
        },
      });
      await expect(store.put('kept', failing)).rejects.toThrow('broken');
      expect((await buffer(await store.get('kept'))).toString()).toBe('original');
    });

    test('keys that could escape the store or are malformed are refused by every operation', async () => {
      const bad = [
        '',
        '../x',
        '/etc/passwd',
        'a/../../b',
        'a//b',
        'a/',
        '.hidden',
        'a/./b',
        'a\\b',
        'a b',
        'é',
        'x'.repeat(600),
      ];
      for (const key of bad) {
        await expect(store.put(key, Readable.from([Buffer.from('x')])), key).rejects.toBeInstanceOf(
          InvalidBlobKeyError,
        );
        await expect(store.get(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.stat(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.delete(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.upload(key, path.join(scratch, 'source')), key).rejects.toBeInstanceOf(
          InvalidBlobKeyError,
        );
        await expect(store.download(key, path.join(scratch, 'd')), key).rejects.toBeInstanceOf(
          InvalidBlobKeyError,
        );
        const link = { expiresAt: Date.now() + 60_000, filename: 'a.pdf', contentType: 'application/pdf' };
        await expect(store.temporaryUrl(key, link), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
      }
    });

    test('upload stores a local file, which can then go away; download copies it back out', async () => {
      const body = randomBytes(2 * MiB + 7);
      const source = path.join(scratch, 'out.pdf');
      await fs.writeFile(source, body);
      expect(await store.upload('jobs/job_4/result', source)).toEqual({ size: body.length });
      await fs.rm(source);
      expect((await buffer(await store.get('jobs/job_4/result'))).equals(body)).toBe(true);

      const destination = path.join(scratch, 'in.pdf');
      await fs.writeFile(destination, 'stale content to be replaced');
      await store.download('jobs/job_4/result', destination);
      expect((await fs.readFile(destination)).equals(body)).toBe(true);
    });

    test('upload of a missing source rejects and stores nothing', async () => {
      await expect(store.upload('jobs/job_5/result', path.join(scratch, 'missing.pdf'))).rejects.toThrow();
      expect(await store.stat('jobs/job_5/result')).toBeUndefined();
    });

    test('concurrent writers to one key leave one whole object', async () => {
      const bodies = [chunkedBody(MiB), chunkedBody(MiB + 1), chunkedBody(MiB + 2)];
      await Promise.all(bodies.map((b) => store.put('contended', b.stream())));
      const read = await buffer(await store.get('contended'));
      expect(bodies.some((b) => b.bytes.equals(read))).toBe(true);
    });

    test('temporaryUrl grants exactly the object, name and type until it expires', async () => {
      await store.put('jobs/job_6/result', Readable.from([Buffer.from('%PDF-1.7')]));
      const expiresAt = Date.now() + 15 * 60_000;
      const url = await store.temporaryUrl('jobs/job_6/result', {
        expiresAt,
        filename: 'Ünïcode report "final".pdf',
        contentType: 'application/pdf',
      });
      const facts = await options.inspectTemporaryUrl(url, Date.now());
      const resolution = options.expiresAtResolutionMs ?? 1;
      expect(facts).toEqual({
        key: 'jobs/job_6/result',
        expiresAt: expiresAt - (expiresAt % resolution),
        filename: 'Ünïcode report "final".pdf',
        contentType: 'application/pdf',
      });
      expect(await options.inspectTemporaryUrl(url, expiresAt + 1)).toBeUndefined();
    });

    test('ping succeeds on a working store', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
