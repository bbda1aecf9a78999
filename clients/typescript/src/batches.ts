// `client.batches` (docs/api.md §11): one spec over many files, each an ordinary job; the batch is
// followed by polling (it has no event stream) and its ZIP streamed to a file or writable.
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Api, data } from './api.js';
import type { components } from './generated/schema.js';
import type { InputSource } from './inputs.js';
import { countingBody, countingWriter, type JobSpec, type Jobs, textParts } from './jobs.js';
import { multipartBody } from './multipart.js';
import type { AnyToolName } from './tool-options.js';
import type { Transport } from './transport.js';
import type { UploadProgress } from './uploads.js';

export type Batch = components['schemas']['Batch'];

export type CreateBatchParams<T extends AnyToolName = AnyToolName> = JobSpec<T> & BatchCommon;

interface BatchCommon {
  /** One job per input. */
  inputs: InputSource[];
  metadata?: Record<string, string>;
  webhookUrl?: string;
  idempotencyKey?: string;
  signal?: AbortSignal;
  onUploadProgress?: (progress: UploadProgress) => void;
}

export class Batches {
  constructor(
    private readonly transport: Transport,
    private readonly api: Api,
    private readonly jobs: Jobs,
  ) {}

  async create<T extends AnyToolName>(params: CreateBatchParams<T>): Promise<Batch> {
    const parts = await this.jobs.parts(params.inputs, params);
    const form = multipartBody(textParts(params), parts);
    // The whole body when its length is known (what the bytes counted are), else the files' sizes.
    const total = Number(
      form.headers['Content-Length'] ?? parts.reduce((sum, p) => sum + (p.kind === 'file' ? p.size : 0), 0),
    );
    const response = await this.transport.send({
      method: 'POST',
      path: '/api/v1/batches',
      headers: {
        ...form.headers,
        ...(params.idempotencyKey ? { 'Idempotency-Key': params.idempotencyKey } : {}),
      },
      body: countingBody(() => form.body(), total, params.onUploadProgress),
      write: countingWriter((sink) => form.writeTo(sink), total, params.onUploadProgress),
      replayable: form.replayable,
      signal: params.signal,
    });
    return (await response.json()) as Batch;
  }

  async get(id: string): Promise<Batch> {
    return data(await this.api.GET('/api/v1/batches/{id}', { params: { path: { id } } }));
  }

  async cancel(id: string): Promise<Batch> {
    return data(await this.api.POST('/api/v1/batches/{id}/cancel', { params: { path: { id } } }));
  }

  /** Polls until every job has ended; the batch's jobs carry each outcome. */
  async wait(
    id: string,
    options: { onProgress?: (batch: Batch) => void; signal?: AbortSignal; intervalMs?: number } = {},
  ): Promise<Batch> {
    for (;;) {
      const batch = await this.get(id);
      options.onProgress?.(batch);
      if (batch.status === 'completed') return batch;
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1000));
      options.signal?.throwIfAborted();
    }
  }

  /** Streams the ZIP of every succeeded job's result. */
  async download(
    id: string,
    options: { to: string | NodeJS.WritableStream; signal?: AbortSignal },
  ): Promise<void> {
    const response = await this.transport.send({
      method: 'GET',
      path: `/api/v1/batches/${encodeURIComponent(id)}/download`,
      signal: options.signal,
    });
    if (!response.body) throw new Error('the batch download answered without a body');
    const sink = typeof options.to === 'string' ? createWriteStream(options.to) : options.to;
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), sink);
  }
}
