// `new Quire({ url, apiKey })`: the resources as namespaces and `run`, which creates a job, waits for
// it and downloads its result in one call. No global state: every client holds its own settings.
import { createApi } from './api.js';
import { Batches } from './batches.js';
import type { DownloadResult } from './download.js';
import type { InputSource } from './inputs.js';
import { type Job, Jobs } from './jobs.js';
import { streamingFetch } from './node-http.js';
import { Recipes } from './recipes.js';
import { Accounts, Keys, Tools, Webhooks } from './resources.js';
import type { AnyToolName, Step, ToolOptions } from './tool-options.js';
import { type RateLimitState, type RetryPolicy, Transport } from './transport.js';
import { DEFAULT_TUS_THRESHOLD, defaultUploadStore, TusUploads, type UploadProgress } from './uploads.js';
import type { JobProgress } from './wait.js';

export interface QuireOptions {
  /** The server, e.g. `http://localhost:8080` (defaults to $QUIRE_URL). */
  url?: string;
  /** An API key (defaults to $QUIRE_API_KEY). Kept private: never in an error or a log line. */
  apiKey?: string;
  retry?: Partial<RetryPolicy>;
  /** Files from paths at or above this many bytes go through tus (default 64 MiB). */
  tusThresholdBytes?: number;
  /** Where upload URLs are remembered for resuming (default $XDG_STATE_HOME/quire/tus-uploads.json). */
  uploadStore?: string;
  /**
   * Bytes per tus PATCH (default: the whole file in one, streamed); set it behind a proxy that
   * limits a request's body, e.g. 100 MB at Cloudflare.
   */
  tusChunkBytes?: number;
  fetch?: typeof fetch;
}

export interface RunOptions {
  onProgress?: (progress: JobProgress) => void;
  onUploadProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
  /** Where the result goes; without it, the job is returned undownloaded. */
  to?: string | NodeJS.WritableStream | WritableStream<Uint8Array>;
  metadata?: Record<string, string>;
  idempotencyKey?: string;
}

function env(name: string): string | undefined {
  return typeof process === 'undefined' ? undefined : process.env[name];
}

export class Quire {
  readonly jobs: Jobs;
  readonly batches: Batches;
  readonly recipes: Recipes;
  readonly uploads: TusUploads;
  readonly tools: Tools;
  readonly webhooks: Webhooks;
  readonly accounts: Accounts;
  readonly keys: Keys;
  readonly #transport: Transport;

  constructor(options: QuireOptions = {}) {
    const url = options.url ?? env('QUIRE_URL');
    const apiKey = options.apiKey ?? env('QUIRE_API_KEY');
    if (!url) throw new TypeError('Quire needs a server URL (option `url` or QUIRE_URL)');
    if (!apiKey) throw new TypeError('Quire needs an API key (option `apiKey` or QUIRE_API_KEY)');
    this.#transport = new Transport({
      baseUrl: url,
      apiKey,
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      streamingFetch,
    });
    const api = createApi(this.#transport);
    this.uploads = new TusUploads(
      this.#transport,
      options.tusThresholdBytes ?? DEFAULT_TUS_THRESHOLD,
      options.uploadStore ?? defaultUploadStore(),
      options.tusChunkBytes,
    );
    this.jobs = new Jobs(this.#transport, api, this.uploads);
    this.batches = new Batches(this.#transport, api, this.jobs);
    this.recipes = new Recipes(api);
    this.tools = new Tools(api);
    this.webhooks = new Webhooks(api);
    this.accounts = new Accounts(api);
    this.keys = new Keys(api);
  }

  /** The latest `RateLimit` headers the server sent. */
  get rateLimit(): RateLimitState {
    return this.#transport.rateLimit;
  }

  /**
   * Creates a job, waits for it and downloads its result to `options.to`: `run('compress',
   * ['in.pdf'], { level: 'high' }, { to: 'out.pdf' })`. A failed job throws QuireError.
   */
  async run<T extends AnyToolName>(
    tool: T,
    inputs: InputSource[],
    toolOptions?: ToolOptions<T>,
    options: RunOptions = {},
  ): Promise<{ job: Job; download?: DownloadResult }> {
    const created = await this.jobs.create<T>({
      tool,
      inputs,
      ...(toolOptions === undefined ? {} : { options: toolOptions }),
      ...common(options),
    });
    return this.#finish(created, options);
  }

  /** `run` for a chain of steps, each on the output of the one before. */
  async runSteps(
    steps: Step[],
    inputs: InputSource[],
    options: RunOptions = {},
  ): Promise<{ job: Job; download?: DownloadResult }> {
    const created = await this.jobs.create({ steps, inputs, ...common(options) });
    return this.#finish(created, options);
  }

  /** `run` for a saved recipe: `runRecipe('scan-cleanup@2', ['in.pdf'], { to: 'out.pdf' })`. */
  async runRecipe(
    recipe: string,
    inputs: InputSource[],
    options: RunOptions = {},
  ): Promise<{ job: Job; download?: DownloadResult }> {
    const created = await this.jobs.create({ recipe, inputs, ...common(options) });
    return this.#finish(created, options);
  }

  async #finish(created: Job, options: RunOptions): Promise<{ job: Job; download?: DownloadResult }> {
    const job = await this.jobs.wait(created.id, {
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (options.to === undefined) return { job };
    const download = await this.jobs.download(job.id, {
      to: options.to,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { job, download };
  }

  /** What `console.log(client)` and JSON show: never the key. */
  toJSON(): { url: string } {
    return { url: this.#transport.baseUrl };
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Quire { url: '${this.#transport.baseUrl}' }`;
  }
}

function common(options: RunOptions) {
  return {
    ...(options.metadata ? { metadata: options.metadata } : {}),
    ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onUploadProgress ? { onUploadProgress: options.onUploadProgress } : {}),
  };
}
