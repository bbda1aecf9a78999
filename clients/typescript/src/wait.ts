// Waiting for a job: the SSE stream (docs/api.md §2, `/events`) while it serves, long-polls of
// `GET /jobs/{id}?wait=60` when it cannot. No timeout unless asked: a long OCR job is not cut.
import { errorFromJob, type Job, networkError, QuireError } from './errors.js';
import { sleep, type Transport } from './transport.js';

export interface JobProgress {
  status: Job['status'];
  percent: number;
  /** The running step of a chained job: 0-based index, tool, and how many steps there are. */
  step?: { index: number; tool: string; count: number };
  job: Job;
}

export interface WaitOptions {
  onProgress?: (progress: JobProgress) => void;
  signal?: AbortSignal;
  /** Give up after this many ms (QuireError `timeout`); none by default. */
  timeoutMs?: number;
  /** Skip the event stream and long-poll only. */
  poll?: boolean;
}

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);
// Plain reads when the server refuses another stream or long-poll: 0.5 s, doubling to 5 s.
const PLAIN_POLL_FIRST_MS = 500;
const PLAIN_POLL_MAX_MS = 5000;

function tooManyStreams(error: unknown): boolean {
  return error instanceof QuireError && error.code === 'too_many_streams';
}

function progressOf(job: Job): JobProgress {
  const step = job.step && job.steps ? { ...job.step, count: job.steps.length } : undefined;
  return { status: job.status, percent: job.progress, job, ...(step ? { step } : {}) };
}

/** Jobs as the event stream sends them, until it ends. */
async function* events(response: Response): AsyncGenerator<Job> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split('\n').filter((l) => l.startsWith('data:'));
      if (lines.length > 0) yield JSON.parse(lines.map((l) => l.slice(5).trimStart()).join('\n')) as Job;
    }
  }
}

function combined(options: WaitOptions): AbortSignal | undefined {
  const signals = [
    options.signal,
    options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs),
  ];
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return present.length === 0 ? undefined : AbortSignal.any(present);
}

function finish(job: Job): Job {
  if (job.status === 'succeeded') return job;
  throw errorFromJob(job);
}

export async function waitForJob(transport: Transport, id: string, options: WaitOptions): Promise<Job> {
  const signal = combined(options);
  let last = -1;
  const report = (job: Job) => {
    const key = job.progress * 100 + (job.step?.index ?? 0);
    if (key !== last || TERMINAL.has(job.status)) options.onProgress?.(progressOf(job));
    last = key;
  };
  let streamsRefused = false;
  try {
    if (!options.poll) {
      try {
        const response = await transport.send({
          method: 'GET',
          path: `/api/v1/jobs/${encodeURIComponent(id)}/events`,
          headers: { Accept: 'text/event-stream' },
          signal,
          giveUpOn: ['too_many_streams'],
        });
        for await (const job of events(response)) {
          report(job);
          if (TERMINAL.has(job.status)) return finish(job);
        }
      } catch (error) {
        // A refusal that long-polling would meet too (404, 401, 403) is the answer; anything else
        // (a proxy that buffers or cuts the stream) falls back to long-polling, and a key that
        // holds every stream it may (429 `too_many_streams`) to plain reads that hold nothing open.
        if (error instanceof QuireError && error.status >= 400 && error.status < 500 && error.status !== 429)
          throw error;
        if (signal?.aborted) throw error;
        streamsRefused = tooManyStreams(error);
      }
    }
    let plain = streamsRefused;
    let interval = PLAIN_POLL_FIRST_MS;
    for (;;) {
      if (plain) {
        await sleep(interval, signal);
        interval = Math.min(interval * 2, PLAIN_POLL_MAX_MS);
      }
      let response: Response;
      try {
        response = await transport.send({
          method: 'GET',
          path: `/api/v1/jobs/${encodeURIComponent(id)}${plain ? '' : '?wait=60'}`,
          signal,
          giveUpOn: ['too_many_streams'],
        });
      } catch (error) {
        if (plain || !tooManyStreams(error)) throw error;
        plain = true;
        continue;
      }
      const job = (await response.json()) as Job;
      report(job);
      if (TERMINAL.has(job.status)) return finish(job);
    }
  } catch (error) {
    if (signal?.aborted && !options.signal?.aborted)
      throw new QuireError({
        status: 0,
        code: 'timeout',
        title: 'Timed out',
        detail: `job ${id} did not end within ${options.timeoutMs} ms`,
        retryable: true,
        cause: error,
      });
    if (error instanceof QuireError) throw error;
    throw networkError(error);
  }
}
