// POST /api/v1/run (docs/api.md §2, "One request: POST /run"): a job request answered with the job's
// result once it ends, streamed from the blob store, so a small job takes one round trip. The job is
// a job like any other: it goes on if the answer cannot wait for it, and stays readable afterwards.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { attachmentDisposition } from '../../blobs/content-disposition.js';
import { type ErrorCode, errorCatalogue } from '../../errors/catalogue.js';
import { QuireError } from '../../errors/quire-error.js';
import { waitForTerminal } from '../../jobs/wait.js';
import { type JobRecord, type JobResult, resultUsableUntil } from '../../model/job.js';
import type { StoredResponse } from '../../store/types.js';
import type { AppDeps } from '../deps.js';
import { completeNow } from '../idempotency.js';
import { preferredWait } from '../prefer.js';
import { sendProblem } from '../problem.js';
import type { OpenStreams } from '../stream-slots.js';
import { createJobFromRequest, refuseBeforeReading } from './job-create.js';
import { MIN_LINK_LIFETIME_MS } from './job-results.js';
import { runSchema } from './run-schemas.js';

/** A client told the job is still running may ask again at once: the retry waits, it does not spin. */
const RETRY_AFTER_S = 1;

export function registerRunRoute(app: FastifyInstance, deps: AppDeps, streams: OpenStreams): void {
  app.post('/api/v1/run', {
    // It creates a job and hands out its result: the scopes of both (docs/api.md §1).
    config: { scope: ['jobs:write', 'jobs:read', 'results:read'], idempotency: 'deferred' },
    schema: runSchema,
    onRequest: async (request) => refuseBeforeReading(request, deps.config.limits.uploadMaxTotalBytes),
    handler: async (request, reply) => {
      // The wait is a long-poll: its slot is taken before the body is read, so a key with every
      // slot open is refused (429) before a job exists.
      const signal = streams.take(request.auth!, reply);
      const { job, replay } = await createJobFromRequest(request, deps);
      const id = job?.id ?? replay?.headers['quire-job-id'];
      if (id === undefined) throw new QuireError('internal_error');
      // The key is kept from now on with what a retry needs, the job: whatever this answer becomes
      // (the result, a problem, or a client gone away), a retry waits on the same job.
      if (job) await completeNow(request, deps, pointerTo(id));
      else reply.header('Idempotent-Replayed', 'true');
      return answerWhenEnded(request, reply, deps, streams, id, signal);
    },
  });
}

function pointerTo(id: string): StoredResponse {
  return { status: 200, headers: { 'quire-job-id': id }, body: Buffer.alloc(0) };
}

async function answerWhenEnded(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AppDeps,
  streams: OpenStreams,
  id: string,
  signal: AbortSignal,
): Promise<FastifyReply> {
  const max = deps.config.http.preferWaitMaxS;
  const preferred = preferredWait(request.headers.prefer, max);
  if (preferred !== undefined) reply.header('Preference-Applied', `wait=${preferred}`);
  reply.header('Quire-Job-Id', id).header('Content-Location', `/api/v1/jobs/${id}`);
  const accountId = request.auth!.accountId;
  const job = await waitForTerminal(
    deps.db.jobs,
    deps.events,
    accountId,
    id,
    (preferred ?? max) * 1000,
    signal,
  );
  // The key was revoked or expired while the request waited: it gets what a new request would.
  if (signal.reason instanceof QuireError) throw signal.reason;
  // The wait is over: its place is free before the answer goes out, so a client that reads the
  // answer and asks again at once finds it free.
  streams.release(signal);
  if (!job) throw new QuireError('not_found', 'The job was deleted while the request waited.');
  // Outcomes of the job, not faults of the request: answered without the error log of a 5xx.
  const outcome = outcomeProblem(job);
  if (outcome) return sendProblem(reply, outcome);
  return sendResult(reply, deps, (job as JobRecord & { result: JobResult }).result);
}

/** The problem a job that has no result to send answers with; undefined when it has one. */
function outcomeProblem(job: JobRecord): QuireError | undefined {
  const extras = { job_id: job.id, job_status: job.status };
  switch (job.status) {
    case 'queued':
    case 'processing':
      return new QuireError(
        'job_still_running',
        `The job is ${job.status}; it goes on. Ask again, or follow it.`,
        {
          extras,
          headers: { Location: `/api/v1/jobs/${job.id}`, 'Retry-After': String(RETRY_AFTER_S) },
        },
      );
    case 'failed': {
      const error = job.error;
      const code: ErrorCode =
        error && error.code in errorCatalogue ? (error.code as ErrorCode) : 'internal_error';
      return new QuireError(code, error?.message ?? 'The job failed.', {
        extras: { ...extras, ...(error?.step ? { step: error.step } : {}) },
      });
    }
    case 'canceled':
      return new QuireError('job_canceled', 'The job was canceled.', { extras });
    case 'succeeded':
      if (!resultUsableUntil(job, Date.now() + MIN_LINK_LIFETIME_MS))
        return new QuireError('result_expired', 'The result was deleted.', { extras });
      return undefined;
  }
}

/** The result's bytes straight from the blob store: streamed, never held in memory. */
async function sendResult(reply: FastifyReply, deps: AppDeps, result: JobResult): Promise<FastifyReply> {
  const body = await deps.blobs.get(result.blobKey).catch(() => {
    throw new QuireError('result_expired', 'The result was deleted.');
  });
  return reply
    .code(200)
    .header('Content-Type', result.contentType)
    .header('Content-Length', String(result.size))
    .header('Content-Disposition', attachmentDisposition(result.name))
    .header('Cache-Control', 'no-store')
    .header('X-Content-Type-Options', 'nosniff')
    .send(body);
}
