// `client.jobs`: create (streamed multipart, large files through tus), read, list, cancel, delete,
// wait (SSE with long-poll fallback) and download (resumable). docs/api.md §2.
import { type Api, data, everyItem } from './api.js';
import { type DownloadOptions, type DownloadResult, downloadLink } from './download.js';
import type { Job } from './errors.js';
import type { components, operations } from './generated/schema.js';
import { type InputSource, type Part, toPart } from './inputs.js';
import { multipartBody } from './multipart.js';
import { type RunDownload, type RunParams, type RunStream, runStream, runTo } from './run.js';
import type { AnyToolName, Step, ToolOptions } from './tool-options.js';
import type { BodyWriter, Transport } from './transport.js';
import type { TusUploads, UploadProgress } from './uploads.js';
import { type WaitOptions, waitForJob } from './wait.js';

export type { Job, RunDownload, RunParams, RunStream };
export type ExportTarget = string | components['schemas']['ExportTarget'];
export type JobList = components['schemas']['JobList'];
export type ListJobsQuery = NonNullable<operations['listJobs']['parameters']['query']>;

interface CreateCommon {
  inputs: InputSource[];
  metadata?: Record<string, string>;
  webhookUrl?: string;
  export?: ExportTarget;
  /** Sent as `Idempotency-Key`; one is made for every create when left out. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Bytes sent so far, for every file input together (multipart) or per tus upload. */
  onUploadProgress?: (progress: UploadProgress) => void;
}

/** What a job runs: one tool, a chain of steps, or a saved recipe (`name`, `name@2` or its id). */
export type JobSpec<T extends AnyToolName = AnyToolName> =
  | { tool: T; options?: ToolOptions<T>; steps?: never; recipe?: never }
  | { steps: Step[]; tool?: never; options?: never; recipe?: never }
  | { recipe: string; tool?: never; options?: never; steps?: never };

export type CreateJobParams<T extends AnyToolName = AnyToolName> = CreateCommon & JobSpec<T>;

/** Text parts in the order the server wants them: spec first, files last (docs/api.md §2). */
export function textParts(params: {
  tool?: string;
  options?: unknown;
  steps?: Step[];
  recipe?: string;
  metadata?: Record<string, string>;
  webhookUrl?: string;
  export?: ExportTarget;
}): Array<[string, string]> {
  const text: Array<[string, string]> = [];
  if (params.tool !== undefined) text.push(['tool', params.tool]);
  if (params.options !== undefined) text.push(['options', JSON.stringify(params.options)]);
  if (params.steps !== undefined) text.push(['steps', JSON.stringify(params.steps)]);
  if (params.recipe !== undefined) text.push(['recipe', params.recipe]);
  if (params.metadata !== undefined) text.push(['metadata', JSON.stringify(params.metadata)]);
  if (params.webhookUrl !== undefined) text.push(['webhook_url', params.webhookUrl]);
  if (params.export !== undefined)
    text.push(['export', typeof params.export === 'string' ? params.export : JSON.stringify(params.export)]);
  return text;
}

/** Counts the bytes of file parts as the body stream is read. */
export function countingBody(
  body: () => ReadableStream<Uint8Array>,
  total: number,
  onProgress?: (progress: UploadProgress) => void,
): () => ReadableStream<Uint8Array> {
  if (!onProgress) return body;
  return () => {
    let sent = 0;
    return body().pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          sent += chunk.byteLength;
          onProgress({ bytesSent: sent, bytesTotal: total });
          controller.enqueue(chunk);
        },
      }),
    );
  };
}

/** The same count for a body written by the SDK itself (Node), as each chunk is handed over. */
export function countingWriter(
  write: BodyWriter,
  total: number,
  onProgress?: (progress: UploadProgress) => void,
): BodyWriter {
  if (!onProgress) return write;
  return (sink) => {
    let sent = 0;
    return write({
      write(chunk) {
        sent += chunk.byteLength;
        onProgress({ bytesSent: sent, bytesTotal: total });
        return sink.write(chunk);
      },
    });
  };
}

export class Jobs {
  constructor(
    private readonly transport: Transport,
    private readonly api: Api,
    private readonly uploads: TusUploads,
  ) {}

  /** The parts of `inputs`, sending files at or over the tus threshold as resumable uploads first. */
  async parts(
    inputs: InputSource[],
    params: Pick<CreateCommon, 'signal' | 'onUploadProgress'>,
  ): Promise<Part[]> {
    const parts: Part[] = [];
    for (const [index, input] of inputs.entries()) {
      const part = await toPart(input, index);
      if (part.kind === 'file' && part.path !== undefined && part.size >= this.uploads.threshold) {
        const upload = await this.uploads.upload(part.path, {
          onProgress: params.onUploadProgress,
          signal: params.signal,
        });
        parts.push({ kind: 'upload_id', value: upload.id });
      } else parts.push(part);
    }
    return parts;
  }

  /** `POST /api/v1/jobs`: one tool, a chain of steps or a recipe on `inputs`, the body streamed. */
  async create<T extends AnyToolName>(params: CreateJobParams<T>): Promise<Job> {
    const parts = await this.parts(params.inputs, params);
    const form = multipartBody(textParts(params), parts);
    // The whole body when its length is known (what the bytes counted are), else the files' sizes.
    const total = Number(
      form.headers['Content-Length'] ?? parts.reduce((sum, p) => sum + (p.kind === 'file' ? p.size : 0), 0),
    );
    const body = countingBody(() => form.body(), total, params.onUploadProgress);
    const response = await this.transport.send({
      method: 'POST',
      path: '/api/v1/jobs',
      headers: {
        ...form.headers,
        ...(params.idempotencyKey === undefined ? {} : { 'Idempotency-Key': params.idempotencyKey }),
      },
      body,
      write: countingWriter((sink) => form.writeTo(sink), total, params.onUploadProgress),
      replayable: form.replayable,
      signal: params.signal,
    });
    return (await response.json()) as Job;
  }

  async get(id: string, options: { signal?: AbortSignal } = {}): Promise<Job> {
    return data(
      await this.api.GET('/api/v1/jobs/{id}', { params: { path: { id } }, signal: options.signal }),
    );
  }

  async list(query: ListJobsQuery = {}): Promise<JobList> {
    return data(await this.api.GET('/api/v1/jobs', { params: { query } }));
  }

  /** Every job, page after page (`starting_after`), newest first. */
  async *iterate(query: Omit<ListJobsQuery, 'starting_after'> = {}): AsyncGenerator<Job> {
    yield* everyItem((after) =>
      this.list({ ...query, ...(after === undefined ? {} : { starting_after: after }) }),
    );
  }

  async cancel(id: string): Promise<Job> {
    return data(await this.api.POST('/api/v1/jobs/{id}/cancel', { params: { path: { id } } }));
  }

  async delete(id: string): Promise<void> {
    await this.api.DELETE('/api/v1/jobs/{id}', { params: { path: { id } } });
  }

  /** Waits until the job ends; a failed or canceled job throws QuireError with its code. */
  wait(id: string, options: WaitOptions = {}): Promise<Job> {
    return waitForJob(this.transport, id, options);
  }

  /**
   * `POST /api/v1/run`: the job and its result in one request. With `to` (a path or a writable) the
   * result is written there; without it, it comes back as a stream to read. A failed job throws
   * QuireError with its code; one still running when the server's wait ends is followed and
   * downloaded, never uploaded again.
   */
  run<T extends AnyToolName>(params: RunParams<T> & { to: DownloadOptions['to'] }): Promise<RunDownload>;
  run<T extends AnyToolName>(params: RunParams<T>): Promise<RunStream>;
  run(params: RunParams & { to?: DownloadOptions['to'] }): Promise<RunDownload | RunStream> {
    const deps = {
      transport: this.transport,
      parts: (inputs: InputSource[], options: Pick<CreateCommon, 'signal' | 'onUploadProgress'>) =>
        this.parts(inputs, options),
      wait: (id: string, options: WaitOptions) => this.wait(id, options),
    };
    const { to } = params;
    return to === undefined ? runStream(deps, params) : runTo(deps, { ...params, to });
  }

  /** Streams the result to a path or a writable, resuming with Range, checking the length. */
  async download(id: string, options: DownloadOptions): Promise<DownloadResult> {
    return downloadLink(this.transport, `/api/v1/jobs/${encodeURIComponent(id)}/download`, options);
  }
}
