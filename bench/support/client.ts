// The job flow over real HTTP, as a client would drive it, with each phase timed separately:
// create (multipart upload; with `Prefer: wait` it also holds the job's run) → long-poll until
// terminal if it is not yet → download link (302) → the bytes, counted and dropped as they arrive.
// node:http with a keep-alive agent rather than fetch: fetch's web-stream body, for the upload and
// the download alike, copies every chunk into fresh memory and costs the client more CPU than the
// server spends on the same bytes (docs/benchmarks.md "The bench client").
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { CHUNK_BYTES, type MultipartBody, multipartBody } from './multipart.js';

export interface JobView {
  id: string;
  status: string;
  error?: { code: string; message: string };
  input: { files: { name: string; size: number }[] };
  result?: Record<string, unknown> & { size: number };
}

/**
 * `prefer-wait`: one request creates the job and answers once it ended (docs/api.md §"Prefer:
 * wait"), the synchronous mode an SDK uses for a small job; the long-poll GET only if it has not.
 * `long-poll`: create answers at once, then GET /jobs/:id?wait until terminal.
 */
export type FlowMode = 'prefer-wait' | 'long-poll';

export interface FlowTiming {
  mode: FlowMode;
  /** The create request: the upload, and with `prefer-wait` the job's run as well. */
  createMs: number;
  /** Long-polling after the create (with `prefer-wait`, 0 unless the job outlived the wait). */
  waitMs: number;
  /** Long-poll requests made. */
  polls: number;
  linkMs: number;
  bodyMs: number;
  totalMs: number;
  job: JobView;
  bytes: number;
}

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);
/** Seconds a create with `prefer-wait`, and each long-poll, may be held for. */
const WAIT_S = 30;

/** Resolves with the bytes of a body that is read and dropped chunk by chunk. */
function drain(response: http.IncomingMessage, keep?: Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    // 'data' events, not an async iterator: read() would join queued chunks into a new buffer.
    response.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      keep?.push(chunk);
    });
    response.once('end', () => resolve(bytes));
    response.once('error', reject);
  });
}

async function text(response: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  await drain(response, chunks);
  return Buffer.concat(chunks).toString('utf8');
}

export class BenchClient {
  /** Keeps connections open between requests, as fetch did, and as a real SDK would. */
  private readonly agent = new http.Agent({ keepAlive: true });
  /** Upload buffer pairs not in use; one pair per upload in flight, reused for every upload. */
  private readonly spareBuffers: [Buffer, Buffer][] = [];

  constructor(
    readonly baseUrl: string,
    private readonly key: string,
  ) {}

  private send(
    method: string,
    pathname: string,
    headers: http.OutgoingHttpHeaders = {},
    body?: MultipartBody,
  ): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const request = http.request(new URL(pathname, this.baseUrl), {
        method,
        agent: this.agent,
        headers: body
          ? { ...headers, 'content-type': body.contentType, 'content-length': body.contentLength }
          : headers,
      });
      request.once('response', resolve).once('error', reject);
      if (!body) {
        request.end();
        return;
      }
      const buffers = this.spareBuffers.pop() ?? [
        Buffer.allocUnsafeSlow(CHUNK_BYTES),
        Buffer.allocUnsafeSlow(CHUNK_BYTES),
      ];
      body.writeTo(request, buffers).then(
        () => {
          this.spareBuffers.push(buffers);
          request.end();
        },
        // The pair may still be in the socket's queue, so it is dropped, not reused.
        (error: Error) => request.destroy(error),
      );
    });
  }

  private get auth(): http.OutgoingHttpHeaders {
    return { authorization: `Bearer ${this.key}` };
  }

  /** Creates a job; with `waitS`, asks the server to answer once it ended or `waitS` passed. */
  async createJob(
    tool: string,
    options: Record<string, unknown>,
    files: readonly string[],
    waitS?: number,
  ): Promise<JobView> {
    const body = multipartBody({ tool, options: JSON.stringify(options) }, 'file', files);
    const prefer = waitS === undefined ? {} : { prefer: `wait=${waitS}` };
    const response = await this.send('POST', '/api/v1/jobs', { ...this.auth, ...prefer }, body);
    const answer = await text(response);
    if (response.statusCode !== 201) throw new Error(`create: ${response.statusCode} ${answer}`);
    return JSON.parse(answer) as JobView;
  }

  async waitTerminal(id: string, deadlineMs = 120_000): Promise<JobView> {
    return (await this.poll(id, deadlineMs)).job;
  }

  private async poll(id: string, deadlineMs: number): Promise<{ job: JobView; polls: number }> {
    const deadline = Date.now() + deadlineMs;
    for (let polls = 1; ; polls++) {
      const response = await this.send('GET', `/api/v1/jobs/${id}?wait=${WAIT_S}`, this.auth);
      const job = JSON.parse(await text(response)) as JobView;
      if (TERMINAL.has(job.status)) return { job, polls };
      if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} after ${deadlineMs} ms`);
    }
  }

  /** Runs one job end to end and checks it succeeded; every phase is timed on the client. */
  async flow(
    tool: string,
    options: Record<string, unknown>,
    files: readonly string[],
    mode: FlowMode = 'prefer-wait',
  ): Promise<FlowTiming> {
    const t0 = performance.now();
    const created = await this.createJob(tool, options, files, mode === 'prefer-wait' ? WAIT_S : undefined);
    const t1 = performance.now();
    const { job, polls } = TERMINAL.has(created.status)
      ? { job: created, polls: 0 }
      : await this.poll(created.id, 120_000);
    const t2 = performance.now();
    if (job.status !== 'succeeded')
      throw new Error(`job ${job.id} ${job.status}: ${job.error?.code} ${job.error?.message}`);
    const redirect = await this.send('GET', `/api/v1/jobs/${job.id}/download`, this.auth);
    const redirectBody = await text(redirect);
    if (redirect.statusCode !== 302) throw new Error(`download: ${redirect.statusCode} ${redirectBody}`);
    const t3 = performance.now();
    const file = await this.send('GET', redirect.headers.location!);
    if (file.statusCode !== 200) throw new Error(`file link: ${file.statusCode} ${await text(file)}`);
    const bytes = await drain(file);
    const t4 = performance.now();
    if (bytes !== job.result?.size)
      throw new Error(`downloaded ${bytes} bytes, result says ${job.result?.size}`);
    return {
      mode,
      createMs: t1 - t0,
      waitMs: t2 - t1,
      polls,
      linkMs: t3 - t2,
      bodyMs: t4 - t3,
      totalMs: t4 - t0,
      job,
      bytes,
    };
  }
  /**
   * The one-request flow (docs/api.md §2, "One request: POST /run"): the job request answered with
   * its result, whose bytes are counted and dropped as they arrive.
   */
  async runJob(
    tool: string,
    options: Record<string, unknown>,
    files: readonly string[],
  ): Promise<{ totalMs: number; bytes: number; jobId: string }> {
    const t0 = performance.now();
    const body = multipartBody({ tool, options: JSON.stringify(options) }, 'file', files);
    const response = await this.send('POST', '/api/v1/run', { ...this.auth, prefer: `wait=${WAIT_S}` }, body);
    if (response.statusCode !== 200) throw new Error(`run: ${response.statusCode} ${await text(response)}`);
    const bytes = await drain(response);
    if (bytes !== Number(response.headers['content-length']))
      throw new Error(`run: ${bytes} bytes of ${response.headers['content-length']}`);
    return { totalMs: performance.now() - t0, bytes, jobId: String(response.headers['quire-job-id']) };
  }

  /** Downloads a succeeded job's result into `file`. */
  async save(id: string, file: string): Promise<void> {
    const redirect = await this.send('GET', `/api/v1/jobs/${id}/download`, this.auth);
    const body = await text(redirect);
    if (redirect.statusCode !== 302) throw new Error(`download: ${redirect.statusCode} ${body}`);
    const response = await this.send('GET', redirect.headers.location!);
    if (response.statusCode !== 200)
      throw new Error(`file link: ${response.statusCode} ${await text(response)}`);
    await pipeline(response, createWriteStream(file));
  }
}

/** Scrapes /metrics and returns every sample line as `series → value` (labels kept verbatim). */
export async function scrapeMetrics(baseUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(new URL('/metrics', baseUrl))).text();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** Sum of all series of `name` whose labels contain every `key="value"` in `match`. */
export function metricSum(
  samples: Map<string, number>,
  name: string,
  match: Record<string, string> = {},
): number {
  let total = 0;
  for (const [series, value] of samples) {
    const bare = series.split('{')[0];
    if (bare !== name) continue;
    if (Object.entries(match).every(([k, v]) => series.includes(`${k}="${v}"`))) total += value;
  }
  return total;
}
