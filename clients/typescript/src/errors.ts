// The one error type of the SDK: every refused request, failed job and network trouble becomes a
// QuireError carrying what the server said (RFC 9457 problem document) and never the API key.
import type { components } from './generated/schema.js';

export type Problem = components['schemas']['Problem'];
export type ErrorCode = components['schemas']['ErrorCode'];
export type Job = components['schemas']['Job'];

/** One entry of a problem's `errors`: where in the request (`/options/level`) and what is wrong. */
export interface FieldError {
  pointer?: string;
  field?: string;
  detail: string;
}

/** Codes the SDK itself uses where no server answer exists. */
export type ClientErrorCode = 'network_error' | 'timeout' | 'aborted' | 'length_mismatch';

export class QuireError extends Error {
  override readonly name = 'QuireError';
  /** The HTTP status; 0 when no answer arrived (network trouble, abort, timeout). */
  readonly status: number;
  readonly code: ErrorCode | ClientErrorCode | (string & {});
  readonly title: string;
  readonly detail: string;
  readonly errors: FieldError[];
  /** Whether sending the same request (or job) again may succeed. */
  readonly retryable: boolean;
  readonly requestId: string | undefined;
  /** The problem document as received, or the failed job's `error` object. */
  readonly problem: Problem | Record<string, unknown> | undefined;
  /** The failed job, when this error reports a job's end rather than a refused request. */
  readonly job: Job | undefined;

  constructor(init: {
    status: number;
    code: string;
    title: string;
    detail: string;
    errors?: FieldError[];
    retryable: boolean;
    requestId?: string;
    problem?: Problem | Record<string, unknown>;
    job?: Job;
    cause?: unknown;
  }) {
    super(`${init.code}: ${init.detail}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.errors = init.errors ?? [];
    this.retryable = init.retryable;
    this.requestId = init.requestId;
    this.problem = init.problem;
    this.job = init.job;
  }

  /** The first field error's pointer (`/options/level`, `/steps/1/tool`), if any. */
  get pointer(): string | undefined {
    return this.errors.find((e) => e.pointer !== undefined)?.pointer;
  }
}

/** Statuses worth sending again: the server was busy, limited or briefly broken. */
export function retryableStatus(status: number, code?: string): boolean {
  if (status === 409) return code === 'idempotency_key_in_use' || code === 'job_not_ready';
  return status === 408 || status === 429 || status >= 500;
}

/** The problem of a refused answer; a body that is not a problem document keeps what is known. */
export async function errorFromResponse(response: Response): Promise<QuireError> {
  const text = await response.text().catch(() => '');
  let problem: Partial<Problem> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') problem = parsed as Partial<Problem>;
  } catch {
    problem = undefined;
  }
  const code = problem?.code ?? `http_${response.status}`;
  return new QuireError({
    status: response.status,
    code,
    title: problem?.title ?? response.statusText,
    detail: problem?.detail ?? `The server answered ${response.status}.`,
    errors: problem?.errors ?? [],
    retryable: retryableStatus(response.status, code),
    requestId: problem?.request_id ?? response.headers.get('x-request-id') ?? undefined,
    problem: problem as Problem | undefined,
  });
}

/** A failed or canceled job as an error: its `error.code`, message and step. */
export function errorFromJob(job: Job): QuireError {
  const error = job.error;
  const step = error?.step ? ` (step ${error.step.index + 1}, ${error.step.tool})` : '';
  return new QuireError({
    status: 0,
    code: error?.code ?? (job.status === 'canceled' ? 'job_canceled' : 'job_failed'),
    title: job.status === 'canceled' ? 'Job canceled' : 'Job failed',
    detail: `${error?.message ?? `The job was ${job.status}.`}${step}`,
    retryable: error?.retryable ?? false,
    problem: error,
    job,
  });
}

/** Network trouble (no answer at all): the cause's message only, never the request's headers. */
export function networkError(cause: unknown): QuireError {
  const aborted = cause instanceof Error && cause.name === 'AbortError';
  const message = cause instanceof Error ? cause.message : String(cause);
  return new QuireError({
    status: 0,
    code: aborted ? 'aborted' : 'network_error',
    title: aborted ? 'Aborted' : 'Network error',
    detail: message,
    retryable: !aborted,
    cause,
  });
}
