// A small HTTP client for the tests: real fetch against a real port (or the inject tier's fetch),
// multipart built by undici. Every answer it receives is checked against the server's /openapi.json
// (openapi-check.ts): a response the document does not describe fails the test that received it.
import { openAsBlob } from 'node:fs';
import path from 'node:path';
import { openApiCheckFor } from './openapi-check.js';

export interface JobBody {
  id: string;
  status: string;
  progress: number;
  error?: { code: string; message: string; retryable: boolean };
  result?: Record<string, unknown> & { name: string; size: number; content_type: string };
  [key: string]: unknown;
}

export interface CreateJobInput {
  tool: string;
  options?: Record<string, unknown>;
  metadata?: Record<string, string>;
  /** Paths on disk, or in-memory files. */
  files: Array<string | { name: string; data: Uint8Array | string }>;
}

export class Client {
  constructor(
    readonly baseUrl: string,
    readonly key?: string,
    /** How requests are sent: the global fetch, or `InjectServer.fetch` for the inject tier. */
    readonly send: typeof fetch = fetch,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.key ? { authorization: `Bearer ${this.key}`, ...extra } : extra;
  }

  async fetch(pathname: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(pathname, this.baseUrl);
    const response = await this.send(url, {
      ...init,
      redirect: 'manual',
      headers: { ...this.headers(), ...(init.headers as Record<string, string> | undefined) },
    });
    return this.conforming(init.method ?? 'GET', url, response);
  }

  /** Throws when the answer is not what /openapi.json documents for the request. */
  async conforming(method: string, url: URL, response: Response): Promise<Response> {
    const check = await openApiCheckFor(this.send, this.baseUrl);
    const mismatches = await check.check(method, url, response);
    if (mismatches.length > 0) {
      throw new Error(`response does not match /openapi.json:\n${mismatches.join('\n')}`);
    }
    return response;
  }

  async form(input: CreateJobInput): Promise<FormData> {
    const form = new FormData();
    form.set('tool', input.tool);
    if (input.options) form.set('options', JSON.stringify(input.options));
    if (input.metadata) form.set('metadata', JSON.stringify(input.metadata));
    for (const file of input.files) {
      if (typeof file === 'string') form.append('file', await openAsBlob(file), path.basename(file));
      else form.append('file', new Blob([file.data]), file.name);
    }
    return form;
  }

  async createJob(input: CreateJobInput): Promise<Response> {
    return this.fetch('/api/v1/jobs', { method: 'POST', body: await this.form(input) });
  }

  /** Creates a job and asserts 201; returns the job body. */
  async submit(input: CreateJobInput): Promise<JobBody> {
    const response = await this.createJob(input);
    if (response.status !== 201)
      throw new Error(`expected 201, got ${response.status}: ${await response.text()}`);
    return (await response.json()) as JobBody;
  }

  /** Long-polls until the job is terminal. */
  async waitFor(id: string, seconds = 60): Promise<JobBody> {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const response = await this.fetch(`/api/v1/jobs/${id}?wait=${Math.min(30, seconds)}`);
      const job = (await response.json()) as JobBody;
      if (['succeeded', 'failed', 'canceled'].includes(job.status) || Date.now() > deadline) return job;
    }
  }

  async run(input: CreateJobInput, seconds = 60): Promise<JobBody> {
    const job = await this.submit(input);
    return this.waitFor(job.id, seconds);
  }

  /** Follows the job's download link and returns the bytes. */
  async download(id: string): Promise<{ response: Response; body: Buffer }> {
    const redirect = await this.fetch(`/api/v1/jobs/${id}/download`);
    if (redirect.status !== 302)
      throw new Error(`expected 302, got ${redirect.status}: ${await redirect.text()}`);
    const location = new URL(redirect.headers.get('location')!, this.baseUrl);
    const response = await this.conforming('GET', location, await this.send(location));
    return { response, body: Buffer.from(await response.arrayBuffer()) };
  }
}
