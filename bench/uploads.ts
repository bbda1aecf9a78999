// Upload throughput on loopback: the same 512 MiB PDF-headed body as one multipart job request
// (POST /api/v1/jobs, as upload-memory sends it) and as a tus upload through tus-js-client in 5 MiB
// and in 50 MiB chunks, into `quire api` (no workers). Modes are interleaved over rounds so that the
// machine's load falls on each alike; the server's peak RSS is sampled per run.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Upload } from 'tus-js-client';
import { RssSampler, readMemory } from './support/memory.js';
import { startServer } from './support/server.js';
import { fmt, MiB, median } from './support/stats.js';
import type { BenchResult } from './types.js';

const FILE_BYTES = 512 * MiB;
const ROUNDS = 2;
const BLOCK = Buffer.alloc(MiB, '% quire upload benchmark filler 0123456789abcdefghijklmnopqrstuvwxyz\n');
const HEADER = Buffer.from('%PDF-1.7\n');
const BOUNDARY = `----quire-bench-${Date.now().toString(16)}`;

/** The file: a PDF header, then filler; one reused block, never the whole file in memory. */
function* file(): Generator<Buffer> {
  yield HEADER;
  for (let left = FILE_BYTES - HEADER.length; left > 0; left -= BLOCK.length)
    yield left >= BLOCK.length ? BLOCK : BLOCK.subarray(0, left);
}

function multipart(baseUrl: string, key: string): Promise<void> {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="tool"\r\n\r\ncompress\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n` +
      'Content-Type: application/pdf\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const body = function* () {
    yield head;
    yield* file();
    yield tail;
  };
  return new Promise((resolve, reject) => {
    const request = http.request(new URL('/api/v1/jobs', baseUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(head.length + FILE_BYTES + tail.length),
      },
    });
    request.once('response', (response) => {
      response.resume();
      response.once('end', () =>
        response.statusCode === 201
          ? resolve()
          : reject(new Error(`multipart answered ${response.statusCode}`)),
      );
    });
    request.once('error', reject);
    pipeline(Readable.from(body(), { objectMode: false }), request).catch(reject);
  });
}

function tus(baseUrl: string, key: string, chunkSize: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const upload = new Upload(Readable.from(file(), { objectMode: false }), {
      endpoint: `${baseUrl}/api/v1/uploads`,
      chunkSize,
      uploadSize: FILE_BYTES,
      headers: { authorization: `Bearer ${key}` },
      storeFingerprintForResuming: false,
      retryDelays: null,
      onError: reject,
      onSuccess: () => resolve(),
    });
    upload.start();
  });
}

const MODES: Record<string, (baseUrl: string, key: string) => Promise<void>> = {
  multipart,
  'tus 5 MiB chunks': (url, key) => tus(url, key, 5 * MiB),
  'tus 50 MiB chunks': (url, key) => tus(url, key, 50 * MiB),
};

export async function uploads(): Promise<BenchResult> {
  const server = await startServer('api', {
    QUIRE_UPLOAD_MAX_FILE_BYTES: String(FILE_BYTES),
    QUIRE_UPLOAD_MAX_TOTAL_BYTES: String(2 * FILE_BYTES),
  });
  const speeds = new Map<string, number[]>(Object.keys(MODES).map((m) => [m, []]));
  const peaks = new Map<string, number>();
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = readMemory(server.pid)!.rssBytes;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [mode, send] of Object.entries(MODES)) {
        const sampler = new RssSampler(server.pid, 50).start();
        const started = performance.now();
        await send(server.baseUrl, server.key);
        const seconds = (performance.now() - started) / 1000;
        sampler.stop();
        speeds.get(mode)!.push(FILE_BYTES / MiB / seconds);
        peaks.set(mode, Math.max(peaks.get(mode) ?? 0, sampler.peakRssBytes));
      }
    }
    const lines = [...speeds].map(
      ([mode, runs]) =>
        `uploads: ${mode}: ${fmt(median(runs))} MiB/s median of ${runs.map((r) => fmt(r)).join(', ')}; ` +
        `server RSS ${fmt(before / MiB)} → peak ${fmt(peaks.get(mode)! / MiB)} MiB`,
    );
    return {
      name: 'uploads',
      lines,
      summary: [...speeds].map(([mode, runs]) => [
        `${mode} (512 MiB)`,
        `${fmt(median(runs))} MiB/s, peak RSS ${fmt(peaks.get(mode)! / MiB)} MiB`,
      ]),
      ok: undefined,
    };
  } finally {
    await server.stop();
  }
}
