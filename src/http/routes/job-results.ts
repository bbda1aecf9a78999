// /api/v1/jobs/{id}/download (the temporary link to the result) and /api/v1/jobs/{id}/events (the
// job as a server-sent event stream until it ends).
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { QuireError } from '../../errors/quire-error.js';
import { nextChange } from '../../jobs/wait.js';
import { type JobRecord, type JobResult, resultUsableUntil, terminalStatuses } from '../../model/job.js';
import { jobView, rfc3339 } from '../../model/job-view.js';
import type { AppDeps } from '../deps.js';
import type { OpenStreams } from '../stream-slots.js';
import { jobSchemas } from './job-schemas.js';

type IdParams = { Params: { id: string } };

/**
 * The shortest life a download link is given. S3 presigns in whole seconds (under one it refuses to
 * sign), and a link that dies before the client can follow it is a result that is already gone: a
 * result with less than this left answers 410 `result_expired`, the same on every store.
 */
export const MIN_LINK_LIFETIME_MS = 1_000;

export function registerJobResultRoutes(app: FastifyInstance, deps: AppDeps, streams: OpenStreams): void {
  registerDownload(app, deps);
  registerEventStream(app, deps, streams);
}

function registerDownload(app: FastifyInstance, deps: AppDeps): void {
  const { db, blobs, config } = deps;
  app.get<IdParams>('/api/v1/jobs/:id/download', {
    config: { scope: 'results:read' },
    schema: jobSchemas.download,
    handler: async (request, reply) => {
      const job = await db.jobs.get(request.auth!.accountId, request.params.id);
      if (!job) throw new QuireError('not_found', 'No job with this id.');
      const now = Date.now();
      const result = downloadableResult(job, now + MIN_LINK_LIFETIME_MS);
      const expiresAt = Math.min(
        now + config.retention.downloadLinkTtlMs,
        job.expiresAt ?? Number.POSITIVE_INFINITY,
      );
      const url = await blobs.temporaryUrl(result.blobKey, {
        expiresAt,
        filename: result.name,
        contentType: result.contentType,
      });
      reply.header('Cache-Control', 'no-store');
      if (prefersJson(request)) return { url, expires_at: rfc3339(expiresAt) };
      return reply.code(302).header('Location', url).send();
    },
  });
}

function registerEventStream(app: FastifyInstance, deps: AppDeps, streams: OpenStreams): void {
  const { db, events } = deps;
  app.get<IdParams>('/api/v1/jobs/:id/events', {
    config: { scope: 'jobs:read' },
    schema: jobSchemas.events,
    handler: async (request, reply) => {
      const accountId = request.auth!.accountId;
      // Before the job is read: a refusal costs no query. Ends when the client goes away or the key
      // is revoked or expires (stream-slots.ts).
      const closed = streams.take(request.auth!, reply);
      let job = await db.jobs.get(accountId, request.params.id);
      if (!job) throw new QuireError('not_found', 'No job with this id.');
      reply.hijack();
      reply.raw.writeHead(200, {
        // Headers set before the hijack (RateLimit-Policy, RateLimit) would otherwise be lost.
        ...(reply.getHeaders() as OutgoingHttpHeaders),
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
        'X-Request-Id': request.id,
      });
      let last = '';
      for (;;) {
        const data = JSON.stringify(jobView(job));
        if (data !== last)
          reply.raw.write(`event: job\nid: ${job.status}-${job.progress}\ndata: ${data}\n\n`);
        last = data;
        if (terminalStatuses.includes(job.status) || closed.aborted) break;
        await nextChange(events, job.id, 1000, closed);
        if (closed.aborted) break; // a revoked key is sent nothing more
        const next = await db.jobs.get(accountId, job.id);
        if (!next) break;
        job = next;
      }
      reply.raw.end();
    },
  });
}

/**
 * The result a download link may point at, or the problem that says why there is none. A result
 * expiring before `usableUntil` counts as expired already (MIN_LINK_LIFETIME_MS).
 */
function downloadableResult(job: JobRecord, usableUntil: number): JobResult {
  switch (job.status) {
    case 'queued':
    case 'processing':
      throw new QuireError('job_not_ready', `The job is ${job.status}; wait for it to succeed.`, {
        extras: { job_status: job.status },
      });
    case 'failed':
      throw new QuireError('job_failed', 'The job failed; see its error.', {
        extras: { job_status: job.status },
      });
    case 'canceled':
      throw new QuireError('job_canceled', 'The job was canceled.', { extras: { job_status: job.status } });
    case 'succeeded':
      if (!resultUsableUntil(job, usableUntil))
        throw new QuireError('result_expired', 'The result was deleted at the end of its retention period.');
      return job.result;
  }
}

function prefersJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /\bapplication\/json\b/i.test(accept);
}
