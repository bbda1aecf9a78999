// Upload throughput on loopback: the same 512 MiB PDF file on disk sent as one multipart job request
// (POST /api/v1/jobs) and as a tus upload through tus-js-client: with the TS SDK's settings (one
// streamed PATCH), in 64 MiB chunks (`tusChunkBytes`, behind a proxy) and in 5 MiB chunks with
// tus-js-client's own file reader, into `quire api` (no workers). Both
// clients read the file from disk, as a user's would. Modes are interleaved over rounds, each mode
// in each place of the order alike, so that the machine's load falls on each alike; every run
// starts with no dirty page cache and its bytes are deleted after it (see `measure`). The server's
// RSS growth (over the idle server) and CPU are measured per run.
import { execFileSync } from 'node:child_process';
import { createReadStream, type ReadStream } from 'node:fs';
import { open, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Upload, type UploadOptions } from 'tus-js-client';
import { RssSampler, readMemory } from './support/memory.js';
import { ownCpuMs, ownUserCpuMs } from './support/process-tree.js';
import { startServer } from './support/server.js';
import { fmt, MiB, median } from './support/stats.js';
import { withTempDir } from './support/work-dir.js';
import type { BenchResult } from './types.js';

const FILE_BYTES = 512 * MiB;
/** A multiple of the modes' count: each mode runs first, second and third equally often. */
const ROUNDS = 6;
const READ_BYTES = MiB;
const BOUNDARY = `----quire-bench-${Date.now().toString(16)}`;
/** Issue 32: tus at ≥ 0.9× multipart throughput, the server's RSS growth ≤ 64 MiB for both. */
const MIN_RATIO = 0.9;
const MAX_GROWTH = 64 * MiB;

/** The file: a PDF header, then filler written from one reused 1 MiB block. */
async function makeFile(file: string): Promise<void> {
  const block = Buffer.alloc(MiB, '% quire upload benchmark filler 0123456789abcdefghijklmnopqrstuvwxyz\n');
  const header = Buffer.from('%PDF-1.7\n');
  const chunks = function* () {
    yield header;
    for (let left = FILE_BYTES - header.length; left > 0; left -= block.length)
      yield left >= block.length ? block : block.subarray(0, left);
  };
  await writeFile(file, Readable.from(chunks(), { objectMode: false }));
}

/** Sends the file; resolves with the path that deletes what the server stored. */
function multipart(file: string, baseUrl: string, key: string): Promise<string> {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="tool"\r\n\r\ncompress\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n` +
      'Content-Type: application/pdf\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const body = async function* () {
    yield head;
    yield* createReadStream(file, { highWaterMark: READ_BYTES });
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
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () =>
        response.statusCode === 201
          ? resolve(`/api/v1/jobs/${(JSON.parse(Buffer.concat(chunks).toString()) as { id: string }).id}`)
          : reject(new Error(`multipart answered ${response.statusCode}`)),
      );
    });
    request.once('error', reject);
    pipeline(Readable.from(body(), { objectMode: false }), request).catch(reject);
  });
}

/**
 * The TS SDK's reader (clients/typescript/src/uploads.ts): one descriptor for the whole upload (the
 * kernel's read-ahead carries on), each chunk read 1 MiB at a time.
 */
const sdkFileReader: NonNullable<UploadOptions['fileReader']> = {
  async openFile(input: ReadStream) {
    const handle = await open(String(input.path), 'r');
    return {
      size: FILE_BYTES,
      close: () => {
        input.destroy();
        void handle.close();
      },
      async slice(start: number, end: number) {
        const last = Math.min(end, FILE_BYTES);
        const value = Object.assign(
          createReadStream('', {
            fd: handle.fd,
            autoClose: false,
            start,
            end: last - 1,
            highWaterMark: READ_BYTES,
          }),
          { size: last - start },
        );
        return { value, done: last >= FILE_BYTES };
      },
    };
  },
};

function tus(file: string, baseUrl: string, key: string, chunkSize: number, sdk: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const upload = new Upload(createReadStream(file), {
      endpoint: `${baseUrl}/api/v1/uploads`,
      chunkSize,
      ...(sdk ? { fileReader: sdkFileReader } : {}),
      headers: { authorization: `Bearer ${key}` },
      storeFingerprintForResuming: false,
      retryDelays: null,
      onError: reject,
      onSuccess: () => resolve(new URL(upload.url!).pathname),
    });
    upload.start();
  });
}

type Send = (file: string, baseUrl: string, key: string) => Promise<string>;
const MODES: Record<string, Send> = {
  multipart,
  'tus, SDK settings (one streamed PATCH)': (file, url, key) =>
    tus(file, url, key, Number.POSITIVE_INFINITY, true),
  'tus 64 MiB chunks (tusChunkBytes)': (file, url, key) => tus(file, url, key, 64 * MiB, true),
  'tus 5 MiB chunks': (file, url, key) => tus(file, url, key, 5 * MiB, false),
};
const SDK_MODE = 'tus, SDK settings (one streamed PATCH)';

interface Run {
  speed: number;
  growth: number;
  cpuMs: number;
  userMs: number;
}

/** Deletes what a run stored (a job's input, an upload's bytes): tus termination or job deletion. */
async function remove(baseUrl: string, key: string, location: string): Promise<void> {
  const response = await fetch(new URL(location, baseUrl), {
    method: 'DELETE',
    headers: { authorization: `Bearer ${key}`, 'tus-resumable': '1.0.0' },
  });
  if (response.status !== 204) throw new Error(`DELETE ${location} answered ${response.status}`);
}

interface Server {
  pid: number;
  baseUrl: string;
  key: string;
}

/**
 * One upload, timed. It starts from the same page cache as every other: what earlier runs (and
 * anything else on the machine) left dirty is flushed first, outside the clock, and the run's
 * 512 MiB is deleted after it. Left to pile up, the runs write 10 GiB; past the kernel's dirty
 * thresholds writeback starts mid-run and slows whichever mode runs then (rounds varied 5×).
 */
async function runOnce(server: Server, file: string, send: Send, idleRss: number): Promise<Run> {
  execFileSync('sync');
  const cpu = ownCpuMs(server.pid);
  const user = ownUserCpuMs(server.pid);
  const sampler = new RssSampler(server.pid, 50).start();
  const started = performance.now();
  const stored = await send(file, server.baseUrl, server.key);
  const seconds = (performance.now() - started) / 1000;
  sampler.stop();
  const run = {
    speed: FILE_BYTES / MiB / seconds,
    growth: sampler.peakRssBytes - idleRss,
    cpuMs: ownCpuMs(server.pid) - cpu,
    userMs: ownUserCpuMs(server.pid) - user,
  };
  await remove(server.baseUrl, server.key, stored);
  return run;
}

/**
 * A warm-up round first, not timed (a fresh server's first large body runs 25–50 % slower: its
 * heap grows and its code is not yet optimised), then ROUNDS rounds, the order rotated each round.
 * RSS growth is over the idle server before the warm-up, so what the first upload made it keep
 * counts too.
 */
async function measure(file: string): Promise<{ runs: Map<string, Run[]>; warmGrowth: number }> {
  const server = await startServer('api', {
    QUIRE_UPLOAD_MAX_FILE_BYTES: String(FILE_BYTES),
    QUIRE_UPLOAD_MAX_TOTAL_BYTES: String(2 * FILE_BYTES),
  });
  const modes = Object.entries(MODES);
  const runs = new Map<string, Run[]>(modes.map(([m]) => [m, []]));
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleRss = readMemory(server.pid)!.rssBytes;
    let warmGrowth = 0;
    for (const [, send] of modes)
      warmGrowth = Math.max(warmGrowth, (await runOnce(server, file, send, idleRss)).growth);
    for (let round = 0; round < ROUNDS; round++) {
      const order = [...modes.slice(round % modes.length), ...modes.slice(0, round % modes.length)];
      for (const [mode, send] of order) runs.get(mode)!.push(await runOnce(server, file, send, idleRss));
    }
    return { runs, warmGrowth };
  } finally {
    await server.stop();
  }
}

export async function uploads(): Promise<BenchResult> {
  const loadBefore = os.loadavg()[0]!;
  const { runs, warmGrowth } = await withTempDir('uploads', async (dir) => {
    const file = path.join(dir, 'big.pdf');
    await makeFile(file);
    if ((await stat(file)).size !== FILE_BYTES) throw new Error('the upload file has the wrong size');
    return measure(file);
  });
  const of = (mode: string, key: keyof Run) => runs.get(mode)!.map((r) => r[key]);
  const best = (mode: string) => Math.max(...of(mode, 'speed'));
  // Judged on each mode's best run: the kernel's copy of the bytes into the page cache, the same
  // for every mode, costs 0.2–2.9 s of system CPU per 512 MiB here at random (fresh pages of this
  // VM are backed by its host on first touch), so a run is only ever slowed by the machine, never
  // sped up, and the fastest run is the one that shows the code (as Python's timeit reads its min).
  const ratio = best(SDK_MODE) / best('multipart');
  const medianRatio = median(of(SDK_MODE, 'speed')) / median(of('multipart', 'speed'));
  const maxGrowth = Math.max(warmGrowth, ...[...runs.values()].flat().map((r) => r.growth));
  const lines = [...runs.keys()].map(
    (mode) =>
      `uploads: ${mode}: best ${fmt(best(mode))} MiB/s (${fmt(best(mode) / best('multipart'), 2)}× multipart's ` +
      `best), median ${fmt(median(of(mode, 'speed')))} of ${of(mode, 'speed')
        .map((r) => fmt(r))
        .join(', ')}; server RSS growth ≤ ${fmt(Math.max(...of(mode, 'growth')) / MiB)} MiB, ` +
      `CPU ${fmt(median(of(mode, 'cpuMs')), 0)} ms per 512 MiB (user ${fmt(median(of(mode, 'userMs')), 0)} ms)`,
  );
  lines.push(`uploads: tus (SDK) / multipart by medians ${fmt(medianRatio, 2)}×`);
  lines.push(`uploads: server RSS growth in the warm-up round (each mode once) ${fmt(warmGrowth / MiB)} MiB`);
  lines.push(`uploads: load average ${fmt(loadBefore, 1)} before, ${fmt(os.loadavg()[0]!, 1)} after`);
  return {
    name: 'uploads',
    lines,
    summary: [
      ...[...runs.keys()].map((mode): [string, string] => [
        `${mode} (512 MiB)`,
        `best ${fmt(best(mode))} MiB/s, median ${fmt(median(of(mode, 'speed')))}, RSS +${fmt(Math.max(...of(mode, 'growth')) / MiB)} MiB`,
      ]),
      ['tus (SDK) / multipart, best runs', `${fmt(ratio, 2)}× (target ≥ ${MIN_RATIO})`],
    ],
    ok: ratio >= MIN_RATIO && maxGrowth <= MAX_GROWTH,
  };
}
