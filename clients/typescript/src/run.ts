// `client.jobs.run`: POST /api/v1/run (docs/api.md §2, "One request"), the job request answered with
// its result, streamed to a file or handed back as a stream. A job still running when the server's
// wait ends (503 `job_still_running`) is followed and downloaded instead of sent again, so the files
// are uploaded once whatever happens.
import type { DownloadOptions, DownloadResult } from './download.js';
import { copy, downloadLink, fileName, freshLink, openLink, sinkOf } from './download.js';
import { errorFromResponse, networkError, QuireError } from './errors.js';
import type { Part } from './inputs.js';
import type { CreateJobParams } from './jobs.js';
import { countingBody, countingWriter, textParts } from './jobs.js';
import { multipartBody } from './multipart.js';
import type { AnyToolName } from './tool-options.js';
import type { Transport } from './transport.js';
import type { WaitOptions } from './wait.js';

export type RunParams<T extends AnyToolName = AnyToolName> = CreateJobParams<T> & {
  /** Seconds the server waits for the job before answering 503 (`Prefer: wait=N`); its cap by default. */
  waitSeconds?: number;
};

/** The result as a stream: read `body` to the end (or cancel it). */
export interface RunStream {
  jobId: string;
  contentType: string | null;
  name: string | undefined;
  /** The result's length, when the server said. */
  size: number | undefined;
  body: ReadableStream<Uint8Array>;
}

export type RunDownload = DownloadResult & { jobId: string };

/** What Jobs lends the run: its parts (tus above the threshold), wait and download. */
export interface RunDeps {
  transport: Transport;
  parts(
    inputs: CreateJobParams['inputs'],
    params: Pick<RunParams, 'signal' | 'onUploadProgress'>,
  ): Promise<Part[]>;
  wait(id: string, options: WaitOptions): Promise<unknown>;
}

/** A problem naming the job is the job's outcome: sending the request again would only repeat it. */
const namesJob = (failure: QuireError) =>
  failure.problem !== undefined && 'job_id' in failure.problem && failure.code !== 'job_still_running';

/** Sends the request; the 200's response, or the id of the job still running. */
async function send(deps: RunDeps, params: RunParams): Promise<Response | { stillRunning: string }> {
  const parts = await deps.parts(params.inputs, params);
  const form = multipartBody(textParts(params), parts);
  const total = Number(
    form.headers['Content-Length'] ?? parts.reduce((sum, p) => sum + (p.kind === 'file' ? p.size : 0), 0),
  );
  try {
    return await deps.transport.send({
      method: 'POST',
      path: '/api/v1/run',
      headers: {
        ...form.headers,
        ...(params.idempotencyKey === undefined ? {} : { 'Idempotency-Key': params.idempotencyKey }),
        ...(params.waitSeconds === undefined ? {} : { Prefer: `wait=${params.waitSeconds}` }),
      },
      body: countingBody(() => form.body(), total, params.onUploadProgress),
      write: countingWriter((sink) => form.writeTo(sink), total, params.onUploadProgress),
      replayable: form.replayable,
      signal: params.signal,
      giveUpOn: ['job_still_running'],
      isFinal: namesJob,
    });
  } catch (error) {
    const id = error instanceof QuireError ? error.problem?.job_id : undefined;
    if (error instanceof QuireError && error.code === 'job_still_running' && typeof id === 'string')
      return { stillRunning: id };
    throw error;
  }
}

/** A stream of `chunks` that stops reading them when cancelled. */
function streamOf(chunks: AsyncIterable<Uint8Array>, discard: () => void): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: () => discard(),
  });
}

function bodyChunks(response: Response): AsyncIterable<Uint8Array> {
  const body = response.body;
  return {
    async *[Symbol.asyncIterator]() {
      if (!body) return;
      const reader = body.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value;
    },
  };
}

const jobIdOf = (response: Response) => response.headers.get('quire-job-id') ?? '';
const sizeOf = (headers: Headers) => {
  const length = Number(headers.get('content-length') ?? Number.NaN);
  return Number.isFinite(length) ? length : undefined;
};

/** The job's result to `to`: from the 200 itself, or downloaded once a job still running ends. */
export async function runTo(
  deps: RunDeps,
  params: RunParams & Pick<DownloadOptions, 'to'>,
): Promise<RunDownload> {
  const answer = await send(deps, params);
  const signal = params.signal ? { signal: params.signal } : {};
  if ('stillRunning' in answer) {
    const jobId = answer.stillRunning;
    await deps.wait(jobId, signal);
    const path = `/api/v1/jobs/${encodeURIComponent(jobId)}/download`;
    return { jobId, ...(await downloadLink(deps.transport, path, { to: params.to, ...signal })) };
  }
  const { sink, close } = sinkOf(params.to);
  const size = sizeOf(answer.headers);
  let bytes = 0;
  try {
    await copy(bodyChunks(answer), sink, (n) => {
      bytes += n;
    });
  } catch (error) {
    // A file the SDK opened is closed either way; a caller's writable stays the caller's.
    if (typeof params.to === 'string') await close().catch(() => {});
    throw networkError(error);
  }
  await close();
  if (size !== undefined && bytes !== size)
    throw networkError(new Error(`the connection ended at ${bytes} of ${size} bytes`));
  return {
    jobId: jobIdOf(answer),
    bytes,
    contentType: answer.headers.get('content-type'),
    name: fileName(answer.headers.get('content-disposition')),
  };
}

/** The job's result as a stream: the 200's body, or the download's once a job still running ends. */
export async function runStream(deps: RunDeps, params: RunParams): Promise<RunStream> {
  const answer = await send(deps, params);
  if (!('stillRunning' in answer)) {
    return {
      jobId: jobIdOf(answer),
      contentType: answer.headers.get('content-type'),
      name: fileName(answer.headers.get('content-disposition')),
      size: sizeOf(answer.headers),
      body: answer.body ?? new ReadableStream({ start: (c) => c.close() }),
    };
  }
  const jobId = answer.stillRunning;
  await deps.wait(jobId, params.signal ? { signal: params.signal } : {});
  const path = `/api/v1/jobs/${encodeURIComponent(jobId)}/download`;
  const link = await openLink(await freshLink(deps.transport, path, params.signal), {}, params.signal);
  if (link.status < 200 || link.status > 299) {
    link.discard();
    throw await errorFromResponse(new Response(null, { status: link.status, headers: link.headers }));
  }
  return {
    jobId,
    contentType: link.headers.get('content-type'),
    name: fileName(link.headers.get('content-disposition')),
    size: sizeOf(link.headers),
    body: streamOf(link.chunks, link.discard),
  };
}
