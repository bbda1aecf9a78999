// What a run or wait tool answers: the job (the API's public view, secrets already redacted), and for
// a succeeded job a temporary download link plus a small text or JSON result inline. Waiting follows
// the job's event stream and turns its progress into MCP progress notifications.
import { ApiProblem, type JobView, type PublicApi } from './public-api.js';

/**
 * Results up to this size of a text or JSON type (extract-text, info, form-fields,
 * verify-signatures) come back inline: enough for a page of facts, small enough for a model's
 * context. Larger ones are a link only.
 */
export const INLINE_MAX_BYTES = 64 * 1024;

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

export type ReportProgress = (job: JobView) => Promise<void>;

/**
 * A progress reporter for a request that sent a progressToken: one notification per rise of the
 * job's percent (MCP 2025-06-18 "Progress": the value must increase with each notification).
 */
export function progressReporter(send: (progress: number, message: string) => Promise<void>): ReportProgress {
  let last = -1;
  return async (job) => {
    const progress = job.status === 'succeeded' ? 100 : job.progress;
    if (progress <= last) return;
    last = progress;
    const step = job.step as { tool?: string } | undefined;
    await send(progress, step?.tool ? `${job.status} (${step.tool})` : job.status);
  };
}

/** Follows the job until it ends, `seconds` pass or the MCP request is canceled. */
export async function waitForJob(
  api: PublicApi,
  job: JobView,
  seconds: number,
  signal: AbortSignal,
  report: ReportProgress,
): Promise<JobView> {
  await report(job);
  if (TERMINAL.has(job.status) || seconds <= 0) return job;
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), seconds * 1000);
  const cancel = () => stop.abort();
  signal.addEventListener('abort', cancel, { once: true });
  let last = job;
  try {
    for await (const view of api.events(job.id, stop.signal)) {
      last = view;
      await report(view);
      if (TERMINAL.has(view.status)) break;
    }
  } catch (error) {
    // Every stream the key may hold is open (429 too_many_streams): read the job plainly instead,
    // as the SDKs do, rather than fail a call whose job exists.
    if (!(error instanceof ApiProblem) || error.problem.code !== 'too_many_streams') throw error;
    last = await pollJob(api, last, stop.signal, report);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', cancel);
    stop.abort();
  }
  return TERMINAL.has(last.status) ? last : api.job(job.id);
}

/** How often a job is read when no event stream is to be had. */
const POLL_MS = 2_000;

async function pollJob(
  api: PublicApi,
  job: JobView,
  stop: AbortSignal,
  report: ReportProgress,
): Promise<JobView> {
  let last = job;
  while (!TERMINAL.has(last.status) && !stop.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, POLL_MS);
      stop.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    last = await api.job(job.id);
    await report(last);
  }
  return last;
}

/** The answer of a run or wait tool: the job, and its result once it has succeeded. */
export async function jobAnswer(api: PublicApi, job: JobView): Promise<Record<string, unknown>> {
  if (job.status !== 'succeeded') return { job };
  try {
    return { job, result: await resultOf(api, job) };
  } catch (error) {
    // A key without `results:read` still learns that the job succeeded.
    if (error instanceof ApiProblem) return { job, result_unavailable: problemSummary(error) };
    throw error;
  }
}

/** The download link of a succeeded job, with the result inline when it is small text or JSON. */
export async function resultOf(api: PublicApi, job: JobView): Promise<Record<string, unknown>> {
  const link = await api.downloadLink(job.id);
  const result = (job.result ?? {}) as { name?: string; size?: number; content_type?: string };
  const answer: Record<string, unknown> = {
    download_url: link.url,
    expires_at: link.expires_at,
    name: result.name,
    content_type: result.content_type,
    size: result.size,
  };
  if (!/^(text\/|application\/json)/.test(result.content_type ?? '')) return answer;
  if ((result.size ?? Number.POSITIVE_INFINITY) > INLINE_MAX_BYTES) {
    answer.inline_omitted = `larger than ${INLINE_MAX_BYTES} bytes: download it from download_url`;
    return answer;
  }
  const text = (await api.fetchLink(link.url)).toString('utf8');
  answer.inline = result.content_type?.startsWith('application/json') ? parsedOrText(text) : text;
  return answer;
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The parts of a problem an agent acts on; problem documents never carry secrets (docs/errors.md). */
export function problemSummary(error: ApiProblem): Record<string, unknown> {
  const { type: _type, instance: _instance, ...rest } = error.problem;
  return { status: error.status, ...rest };
}

export function problemText(error: ApiProblem): string {
  const { code, detail, required_scope: scope } = error.problem as Record<string, string | undefined>;
  const fields = Array.isArray(error.problem.errors)
    ? (error.problem.errors as Array<{ pointer?: string; field?: string; detail?: string }>)
        .map((e) => ` ${e.pointer ?? e.field ?? ''}: ${e.detail ?? ''}`)
        .join(';')
    : '';
  return `${code ?? `HTTP ${error.status}`}: ${detail ?? ''}${scope ? ` (the API key needs the scope ${scope})` : ''}${fields}`;
}
