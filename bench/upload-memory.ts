// Upload memory: streams a 1 GiB multipart upload into `quire api` (no workers, so the job stays
// queued) and samples the server's RSS while it arrives. The client never holds more than one
// 1 MiB chunk: the body is a generator behind an exact Content-Length.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RssSampler, readMemory } from './support/memory.js';
import { startServer } from './support/server.js';
import { fmt, MiB } from './support/stats.js';
import type { BenchResult } from './types.js';

const GiB = 1024 * MiB;
const FILLER_BYTES = 1 * GiB;
const CHUNK_BYTES = 1 * MiB;
const HEADER = Buffer.from('%PDF-1.7\n');
const BOUNDARY = `----quire-bench-${Date.now().toString(16)}`;
const TARGET_GROWTH_MIB = 100;
const UPLOAD_TIMEOUT_MS = 5 * 60_000;

function multipartParts(): { head: Buffer; tail: Buffer } {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="tool"\r\n\r\ncompress\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n` +
      'Content-Type: application/pdf\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  return { head, tail };
}

/** PDF header, then FILLER_BYTES of printable lines; one reused chunk, never the whole file. */
function* body(head: Buffer, tail: Buffer): Generator<Buffer> {
  yield head;
  yield HEADER;
  const line = '% quire upload benchmark filler 0123456789abcdefghijklmnopqrstuvwxyz\n';
  const chunk = Buffer.alloc(CHUNK_BYTES, line);
  for (let sent = 0; sent < FILLER_BYTES; sent += CHUNK_BYTES) {
    yield sent + CHUNK_BYTES <= FILLER_BYTES ? chunk : chunk.subarray(0, FILLER_BYTES - sent);
  }
  yield tail;
}

function upload(baseUrl: string, key: string): Promise<{ status: number; text: string }> {
  const { head, tail } = multipartParts();
  const length = head.length + HEADER.length + FILLER_BYTES + tail.length;
  const url = new URL('/api/v1/jobs', baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(length),
      },
      timeout: UPLOAD_TIMEOUT_MS,
    });
    request.once('timeout', () => request.destroy(new Error('upload timed out')));
    request.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (part: string) => {
        text += part;
      });
      response.once('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.once('error', reject);
    });
    request.once('error', reject);
    pipeline(Readable.from(body(head, tail), { objectMode: false }), request).catch(reject);
  });
}

export async function uploadMemory(): Promise<BenchResult> {
  const server = await startServer('api', {
    QUIRE_UPLOAD_MAX_FILE_BYTES: String(2 * GiB),
    QUIRE_UPLOAD_MAX_TOTAL_BYTES: String(4 * GiB),
  });
  try {
    // Let start-up garbage settle so "before" is the idle server, not its boot.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = readMemory(server.pid)!;
    const sampler = new RssSampler(server.pid, 50).start();
    const started = performance.now();
    const response = await upload(server.baseUrl, server.key);
    const seconds = (performance.now() - started) / 1000;
    sampler.stop();
    const after = readMemory(server.pid)!;
    if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${response.text}`);
    const job = JSON.parse(response.text) as {
      id: string;
      status: string;
      input: { files: { size: number }[] };
    };
    const sentFileBytes = HEADER.length + FILLER_BYTES;
    const storedBytes = job.input.files[0]?.size;
    if (storedBytes !== sentFileBytes) throw new Error(`stored ${storedBytes} bytes, sent ${sentFileBytes}`);

    // VmHWM also catches a spike between two samples; it only counts if it rose during the upload.
    const peak = Math.max(sampler.peakRssBytes, after.hwmBytes > before.hwmBytes ? after.hwmBytes : 0);
    const growthMiB = (peak - before.rssBytes) / MiB;
    const mibPerSecond = sentFileBytes / MiB / seconds;
    const clientPeakMiB = (process.resourceUsage().maxRSS * 1024) / MiB;
    const lines = [
      `upload-memory: 1 GiB multipart into \`quire api\`: ${fmt(mibPerSecond)} MiB/s (${fmt(seconds, 2)} s), ` +
        `job ${job.id} ${job.status}, stored ${storedBytes} B = sent ${sentFileBytes} B`,
      `  server RSS before ${fmt(before.rssBytes / MiB)} MiB, peak during ${fmt(peak / MiB)} MiB ` +
        `(sampled max ${fmt(sampler.peakRssBytes / MiB)} MiB over ${sampler.samples} samples, VmHWM ` +
        `${fmt(before.hwmBytes / MiB)} → ${fmt(after.hwmBytes / MiB)} MiB), growth ${fmt(growthMiB)} MiB ` +
        `(target < ${TARGET_GROWTH_MIB} MiB: ${growthMiB < TARGET_GROWTH_MIB ? 'met' : 'NOT met'})`,
      `  client peak RSS ${fmt(clientPeakMiB)} MiB`,
    ];
    return {
      name: 'upload-memory',
      lines,
      summary: [
        ['upload throughput', `${fmt(mibPerSecond)} MiB/s`],
        ['server RSS before / peak', `${fmt(before.rssBytes / MiB)} / ${fmt(peak / MiB)} MiB`],
        ['server RSS growth', `${fmt(growthMiB)} MiB (target < ${TARGET_GROWTH_MIB})`],
        ['stored size = sent size', `${storedBytes === sentFileBytes ? 'yes' : 'NO'} (${sentFileBytes} B)`],
      ],
      ok: growthMiB < TARGET_GROWTH_MIB,
    };
  } finally {
    await server.stop();
  }
}
