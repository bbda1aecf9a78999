// The job flow over real HTTP, as a client would drive it, with each phase timed separately:
// create (multipart upload) → long-poll until terminal → download link (302) → the bytes.
import { openAsBlob } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface JobView {
  id: string;
  status: string;
  error?: { code: string; message: string };
  input: { files: { name: string; size: number }[] };
  result?: Record<string, unknown> & { size: number };
}

export interface FlowTiming {
  createMs: number;
  waitMs: number;
  linkMs: number;
  bodyMs: number;
  totalMs: number;
  job: JobView;
  bytes: number;
}

export class BenchClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
  ) {}

  private async call(pathname: string, init: RequestInit = {}): Promise<Response> {
    return fetch(new URL(pathname, this.baseUrl), {
      ...init,
      redirect: 'manual',
      headers: { authorization: `Bearer ${this.key}` },
    });
  }

  async createJob(
    tool: string,
    options: Record<string, unknown>,
    files: readonly string[],
  ): Promise<JobView> {
    const form = new FormData();
    form.set('tool', tool);
    form.set('options', JSON.stringify(options));
    for (const file of files) form.append('file', await openAsBlob(file), path.basename(file));
    const response = await this.call('/api/v1/jobs', { method: 'POST', body: form });
    if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
    return (await response.json()) as JobView;
  }

  async waitTerminal(id: string, deadlineMs = 120_000): Promise<JobView> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const response = await this.call(`/api/v1/jobs/${id}?wait=30`);
      const job = (await response.json()) as JobView;
      if (['succeeded', 'failed', 'canceled'].includes(job.status)) return job;
      if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status} after ${deadlineMs} ms`);
    }
  }

  /** Runs one job end to end and checks it succeeded; every phase is timed on the client. */
  async flow(tool: string, options: Record<string, unknown>, files: readonly string[]): Promise<FlowTiming> {
    const t0 = performance.now();
    const created = await this.createJob(tool, options, files);
    const t1 = performance.now();
    const job = await this.waitTerminal(created.id);
    const t2 = performance.now();
    if (job.status !== 'succeeded')
      throw new Error(`job ${job.id} ${job.status}: ${job.error?.code} ${job.error?.message}`);
    const redirect = await this.call(`/api/v1/jobs/${job.id}/download`);
    if (redirect.status !== 302) throw new Error(`download: ${redirect.status} ${await redirect.text()}`);
    await redirect.body?.cancel();
    const t3 = performance.now();
    const file = await fetch(new URL(redirect.headers.get('location')!, this.baseUrl));
    if (file.status !== 200) throw new Error(`file link: ${file.status}`);
    const bytes = (await file.arrayBuffer()).byteLength;
    const t4 = performance.now();
    if (bytes !== job.result?.size)
      throw new Error(`downloaded ${bytes} bytes, result says ${job.result?.size}`);
    return {
      createMs: t1 - t0,
      waitMs: t2 - t1,
      linkMs: t3 - t2,
      bodyMs: t4 - t3,
      totalMs: t4 - t0,
      job,
      bytes,
    };
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
