// @quire/client/browser: the SDK for web pages. It imports no `node:` module: inputs are Blobs and
// Files (sent as the browser streams them) or finished tus uploads, large files go through
// tus-js-client's browser upload (its URL kept in localStorage, so a reload resumes), and results are
// fetched from the temporary link the API hands out, never proxied through page memory.
import * as tus from 'tus-js-client';
import { type Api, createApi, data } from './api.js';
import { type Job, QuireError } from './errors.js';
import type { components, operations } from './generated/schema.js';
import { Recipes } from './recipes.js';
import { Tools } from './resources.js';
import type { Step } from './tool-options.js';
import { type RateLimitState, type RetryPolicy, Transport } from './transport.js';
import { tusError } from './tus-error.js';
import { type WaitOptions, waitForJob } from './wait.js';

export type { Job } from './errors.js';
export { type ErrorCode, type FieldError, type Problem, QuireError } from './errors.js';
export type { components, operations, paths } from './generated/schema.js';
export type { ListRecipesQuery, Recipe, RecipeList } from './recipes.js';
export type { Tool, ToolList } from './resources.js';
export type { AnyToolName, Step, ToolName, ToolOptions } from './tool-options.js';
export type { RateLimitState, RetryPolicy } from './transport.js';
export type { JobProgress, WaitOptions } from './wait.js';

// Written out here rather than imported: the Node modules that declare them import `node:` modules.
export type ListJobsQuery = NonNullable<operations['listJobs']['parameters']['query']>;
export type JobList = components['schemas']['JobList'];
export interface UploadProgress {
  bytesSent: number;
  bytesTotal: number;
}

/** One input of a browser job: a Blob or File, or a finished tus upload. */
export type BrowserInput = Blob | { uploadId: string };

export interface BrowserQuireOptions {
  /** The API's base, e.g. `new URL('.', document.baseURI).href` for the page's own server. */
  url: string;
  apiKey: string;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
}

export interface BrowserCreateParams {
  tool?: string;
  options?: unknown;
  steps?: Step[];
  /** A saved recipe's id or name, optionally `@version`, in place of `tool`/`options`/`steps`. */
  recipe?: string;
  inputs: BrowserInput[];
  metadata?: Record<string, string>;
  idempotencyKey?: string;
  signal?: AbortSignal;
}

type BatchView = operations['getBatch']['responses']['200']['content']['application/json'];

/** `client.jobs` in a page: create from Blobs, read, list, cancel, delete, wait, and the result link. */
export class BrowserJobs {
  constructor(
    private readonly transport: Transport,
    private readonly api: Api,
  ) {}

  /** `POST /api/v1/jobs` as multipart/form-data: spec parts first, files last (docs/api.md §2). */
  async create(params: BrowserCreateParams): Promise<Job> {
    const response = await this.transport.send({
      method: 'POST',
      path: '/api/v1/jobs',
      headers: params.idempotencyKey ? { 'Idempotency-Key': params.idempotencyKey } : {},
      // A FormData body can be built again for a retry; Blob parts are read by the browser as sent.
      body: () => formOf(params),
      signal: params.signal,
    });
    return (await response.json()) as Job;
  }

  async get(id: string): Promise<Job> {
    return data(await this.api.GET('/api/v1/jobs/{id}', { params: { path: { id } } }));
  }

  async list(query: ListJobsQuery = {}) {
    return data(await this.api.GET('/api/v1/jobs', { params: { query } }));
  }

  async cancel(id: string): Promise<Job> {
    return data(await this.api.POST('/api/v1/jobs/{id}/cancel', { params: { path: { id } } }));
  }

  async delete(id: string): Promise<void> {
    await this.api.DELETE('/api/v1/jobs/{id}', { params: { path: { id } } });
  }

  /** Waits over SSE (long-poll fallback); a failed or canceled job throws QuireError with its code. */
  wait(id: string, options: WaitOptions = {}): Promise<Job> {
    return waitForJob(this.transport, id, options);
  }

  /** The temporary link of a succeeded job's result (`Accept: application/json` form). */
  async downloadLink(id: string): Promise<{ url: string; expires_at: string }> {
    return linkOf(this.transport, `/api/v1/jobs/${encodeURIComponent(id)}/download`);
  }
}

export class BrowserBatches {
  constructor(private readonly transport: Transport) {}

  /** `POST /api/v1/batches`: the same tool or steps on each file, one job per file. */
  async create(params: BrowserCreateParams): Promise<BatchView> {
    const response = await this.transport.send({
      method: 'POST',
      path: '/api/v1/batches',
      body: () => formOf(params),
      signal: params.signal,
    });
    return (await response.json()) as BatchView;
  }

  async get(id: string): Promise<BatchView> {
    const response = await this.transport.send({
      method: 'GET',
      path: `/api/v1/batches/${encodeURIComponent(id)}`,
    });
    return (await response.json()) as BatchView;
  }

  /** The ZIP of every succeeded job's result (the batch download needs the key: no temporary link). */
  async download(id: string): Promise<Blob> {
    const response = await this.transport.send({
      method: 'GET',
      path: `/api/v1/batches/${encodeURIComponent(id)}/download`,
    });
    return response.blob();
  }
}

/** Resumable uploads from a Blob; the upload URL is remembered (tus fingerprint → URL, no bytes). */
export class BrowserUploads {
  constructor(private readonly transport: Transport) {}

  async upload(
    file: Blob,
    options: { onProgress?: (p: UploadProgress) => void; signal?: AbortSignal; name?: string } = {},
  ): Promise<{ id: string; url: string; size: number }> {
    const name = options.name ?? (file instanceof File ? file.name : 'upload');
    const upload = new tus.Upload(file, {
      endpoint: this.transport.url('/api/v1/uploads'),
      headers: this.transport.authHeaders(),
      metadata: { filename: name },
      chunkSize: 16 * 1024 * 1024,
      retryDelays: [0, 1000, 3000, 5000, 10000],
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      onProgress: (bytesSent, bytesTotal) => options.onProgress?.({ bytesSent, bytesTotal }),
    });
    const previous = await upload.findPreviousUploads();
    const latest = previous.sort((a, b) => b.creationTime.localeCompare(a.creationTime))[0];
    if (latest) upload.resumeFromPreviousUpload(latest);
    await new Promise<void>((resolve, reject) => {
      options.signal?.addEventListener(
        'abort',
        () => {
          void upload.abort();
          reject(options.signal?.reason);
        },
        { once: true },
      );
      upload.options.onSuccess = () => resolve();
      upload.options.onError = (error) => reject(tusError(error));
      upload.start();
    });
    const url = upload.url ?? '';
    return { id: url.slice(url.lastIndexOf('/') + 1), url, size: file.size };
  }
}

/** The browser client: `new QuireBrowser({ url, apiKey })`. The key goes to `url` only. */
export class QuireBrowser {
  readonly jobs: BrowserJobs;
  readonly batches: BrowserBatches;
  readonly uploads: BrowserUploads;
  readonly tools: Tools;
  readonly recipes: Recipes;
  readonly #transport: Transport;

  constructor(options: BrowserQuireOptions) {
    this.#transport = new Transport({
      baseUrl: options.url,
      apiKey: options.apiKey,
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const api = createApi(this.#transport);
    this.jobs = new BrowserJobs(this.#transport, api);
    this.batches = new BrowserBatches(this.#transport);
    this.uploads = new BrowserUploads(this.#transport);
    this.tools = new Tools(api);
    this.recipes = new Recipes(api);
  }

  get rateLimit(): RateLimitState {
    return this.#transport.rateLimit;
  }

  /** A GET of any API path with the key (for resources the SDK does not model, e.g. new ones). */
  get(path: string): Promise<Response> {
    return this.#transport.send({ method: 'GET', path });
  }

  toJSON(): { url: string } {
    return { url: this.#transport.baseUrl };
  }
}

function formOf(params: BrowserCreateParams): FormData {
  const form = new FormData();
  if (params.tool !== undefined) form.append('tool', params.tool);
  if (params.options !== undefined) form.append('options', JSON.stringify(params.options));
  if (params.steps !== undefined) form.append('steps', JSON.stringify(params.steps));
  if (params.recipe !== undefined) form.append('recipe', params.recipe);
  if (params.metadata !== undefined) form.append('metadata', JSON.stringify(params.metadata));
  for (const input of params.inputs) {
    if (input instanceof Blob) form.append('file', input, input instanceof File ? input.name : 'input');
    else form.append('upload_id', input.uploadId);
  }
  return form;
}

async function linkOf(transport: Transport, path: string): Promise<{ url: string; expires_at: string }> {
  const response = await transport.send({ method: 'GET', path, headers: { Accept: 'application/json' } });
  const body = (await response.json()) as { url?: string; expires_at?: string };
  if (!body.url)
    throw new QuireError({
      status: response.status,
      code: 'bad_answer',
      title: 'No link',
      detail: path,
      retryable: false,
    });
  // A relative link (local storage without QUIRE_PUBLIC_BASE_URL) is relative to the API's base.
  return { url: transport.url(body.url), expires_at: body.expires_at ?? '' };
}
