// The public API as the MCP tools see it: every call is a request through the app's own router
// (`app.inject`) with the caller's key, so authentication, scopes, plan limits, rate limits and
// problem+json apply to an agent exactly as to any other client (docs/agents.md).
import type { FastifyInstance } from 'fastify';

/** A problem+json answer of the API, kept whole so the MCP error can name code, scope and fields. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly problem: Record<string, unknown>,
  ) {
    super(typeof problem.detail === 'string' ? problem.detail : `HTTP ${status}`);
  }
}

export type JobView = Record<string, unknown> & { id: string; status: string; progress: number };

export interface CatalogTool {
  name: string;
  title: string;
  description: string;
  inputs: { min_files: number; max_files: number; accepts: string[] };
  options_schema: Record<string, unknown>;
  output: { content_type: string };
  available: boolean;
  reason?: string;
}

export interface Catalog {
  data: CatalogTool[];
  limits: Record<string, unknown>;
}

/** One form field of a job request, in order (`upload_id` and `file_url` parts keep their order). */
export type FormField = [name: string, value: string];

export class PublicApi {
  constructor(
    private readonly app: FastifyInstance,
    /** The caller's own `Authorization` or `X-API-Key` header, forwarded unchanged. */
    private readonly credentials: Record<string, string>,
    /** The origin links are made absolute against (QUIRE_PUBLIC_BASE_URL or the request's host). */
    readonly base: string,
  ) {}

  async #call(
    method: 'GET' | 'POST',
    url: string,
    options: { payload?: FormData; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
    const response = await this.app.inject({
      method,
      url,
      headers: { ...options.headers, ...this.credentials },
      ...(options.payload ? { payload: options.payload } : {}),
    });
    if (response.statusCode >= 400) throw new ApiProblem(response.statusCode, parseProblem(response.body));
    return { status: response.statusCode, headers: response.headers, body: response.body };
  }

  async #json<T>(method: 'GET' | 'POST', url: string, headers?: Record<string, string>): Promise<T> {
    return JSON.parse((await this.#call(method, url, headers ? { headers } : {})).body) as T;
  }

  catalog(): Promise<Catalog> {
    return this.#json('GET', '/api/v1/tools');
  }

  job(id: string): Promise<JobView> {
    return this.#json('GET', `/api/v1/jobs/${encodeURIComponent(id)}`);
  }

  cancel(id: string): Promise<JobView> {
    return this.#json('POST', `/api/v1/jobs/${encodeURIComponent(id)}/cancel`);
  }

  async createJob(fields: FormField[]): Promise<JobView> {
    const form = new FormData();
    for (const [name, value] of fields) form.append(name, value);
    return JSON.parse((await this.#call('POST', '/api/v1/jobs', { payload: form })).body) as JobView;
  }

  /** A temporary download link (absolute) for a succeeded job's result. */
  async downloadLink(id: string): Promise<{ url: string; expires_at: string }> {
    const link = await this.#json<{ url: string; expires_at: string }>(
      'GET',
      `/api/v1/jobs/${encodeURIComponent(id)}/download`,
      { accept: 'application/json' },
    );
    return { ...link, url: this.absolute(link.url) };
  }

  /** Creates an empty tus upload of `size` bytes (docs/api.md §12); the client sends the bytes. */
  async createUpload(filename: string, size: number): Promise<{ id: string; url: string; expires?: string }> {
    const { headers } = await this.#call('POST', '/api/v1/uploads', {
      headers: {
        'tus-resumable': '1.0.0',
        'upload-length': String(size),
        'upload-metadata': `filename ${Buffer.from(filename).toString('base64')}`,
      },
    });
    const location = String(headers.location ?? '');
    const expires = headers['upload-expires'];
    return {
      id: location.slice(location.lastIndexOf('/') + 1),
      url: this.absolute(location),
      ...(typeof expires === 'string' ? { expires } : {}),
    };
  }

  /**
   * The bytes behind a download link: through the router for a local link (the link is its own
   * capability, no key is sent), with fetch for a presigned S3 one.
   */
  async fetchLink(url: string): Promise<Buffer> {
    if (url.startsWith(`${this.base}/`)) {
      const response = await this.app.inject({ method: 'GET', url: url.slice(this.base.length) });
      if (response.statusCode !== 200) throw new ApiProblem(response.statusCode, parseProblem(response.body));
      return response.rawPayload;
    }
    const response = await fetch(url);
    if (!response.ok) throw new ApiProblem(response.status, { code: 'result_expired' });
    return Buffer.from(await response.arrayBuffer());
  }

  /**
   * The job's Server-Sent Events (docs/api.md §2) as a stream of job views, through the router like
   * any client's stream: it counts against the key's stream cap and ends at a terminal status.
   */
  async *events(id: string, signal: AbortSignal): AsyncGenerator<JobView> {
    const response = await this.app.inject({
      method: 'GET',
      url: `/api/v1/jobs/${encodeURIComponent(id)}/events`,
      headers: { accept: 'text/event-stream', ...this.credentials },
      payloadAsStream: true,
      signal,
    });
    const stream = response.stream();
    if (response.statusCode >= 400) {
      let body = '';
      for await (const chunk of stream) body += String(chunk);
      throw new ApiProblem(response.statusCode, parseProblem(body));
    }
    let buffered = '';
    try {
      for await (const chunk of stream) {
        buffered += String(chunk);
        let end = buffered.indexOf('\n\n');
        while (end >= 0) {
          const data = buffered
            .slice(0, end)
            .split('\n')
            .find((line) => line.startsWith('data: '));
          buffered = buffered.slice(end + 2);
          if (data) yield JSON.parse(data.slice(6)) as JobView;
          end = buffered.indexOf('\n\n');
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }

  absolute(link: string): string {
    return link.startsWith('/') ? `${this.base}${link}` : link;
  }
}

function parseProblem(body: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(body) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
