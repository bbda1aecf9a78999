// /api/v1/jobs: create (multipart), read with long-poll, list, download link, cancel, delete, events.
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ulid } from 'ulid';
import { requireScope } from '../../auth/authenticate.js';
import { jobFolder } from '../../blobs/keys.js';
import { accountLimits } from '../../config/plans.js';
import { QuireError } from '../../errors/quire-error.js';
import { jobView, rfc3339 } from '../../jobs/job-view.js';
import { nextChange, waitForTerminal } from '../../jobs/wait.js';
import type { JobRecord, JobStatus, StoredResponse } from '../../store/types.js';
import { terminalStatuses } from '../../store/types.js';
import type { AppDeps } from '../deps.js';
import { completedResponse, fingerprintOf, sendReplay } from '../idempotency.js';
import { type ReceivedJob, receiveJobUpload } from '../upload.js';
import { jobSchemas } from './job-schemas.js';

const authenticated = { authenticated: true };

export function registerJobRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { db, blobs, catalog, config, events } = deps;

  const loadJob = async (request: FastifyRequest<{ Params: { id: string } }>): Promise<JobRecord> => {
    const job = await db.jobs.get(request.auth!.accountId, request.params.id);
    if (!job) throw new QuireError('not_found', 'No job with this id.');
    return job;
  };

  app.post('/api/v1/jobs', {
    // The fingerprint includes each file's SHA-256, known only once the upload is stored.
    config: { ...authenticated, idempotency: 'deferred' },
    schema: jobSchemas.create,
    onRequest: async (request) => {
      requireScope(request.auth!, 'jobs:write');
      // Refuse before reading: a declared length over the limit never gets its body consumed.
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > config.limits.uploadMaxTotalBytes) {
        throw new QuireError(
          'payload_too_large',
          `The upload is larger than ${config.limits.uploadMaxTotalBytes} bytes.`,
          {
            extras: { limit_bytes: config.limits.uploadMaxTotalBytes },
            headers: { Connection: 'close' },
          },
        );
      }
      if (!/^multipart\/form-data\b/i.test(request.headers['content-type'] ?? ''))
        throw new QuireError('unsupported_media_type', 'Send the job as multipart/form-data.');
    },
    handler: async (request, reply) => {
      const auth = request.auth!;
      const id = `job_${ulid()}`;
      const limits = accountLimits(config, auth.plan);
      const received = await receiveJobUpload(request, id, catalog, blobs, {
        ...limits,
        plan: limits.plan.name,
      });
      let replay: StoredResponse | undefined;
      try {
        replay = completedResponse(request, jobFingerprint(received));
      } finally {
        // A replayed (or refused) upload is not a job: its stored files go before the answer
        // (docs/api.md §4), so a client never sees them.
        if (replay || request.idempotency?.settled) await deleteInputs(blobs, received.inputs);
      }
      if (replay) return sendReplay(reply, replay);
      const job = await db.jobs
        .create({
          id,
          accountId: auth.accountId,
          tool: received.entry.tool.name,
          options: received.options,
          secretOptions: [...(received.entry.tool.secretOptions ?? [])],
          metadata: received.metadata,
          inputs: received.inputs,
          createdAt: Date.now(),
        })
        .catch(async (error: unknown) => {
          // No job row, no sweep would ever find these files: delete them now. Only when the job is
          // known to be absent — a commit whose answer was lost may still have created it.
          const absent = await db.jobs.get(auth.accountId, id).then(
            (found) => found === undefined,
            () => false,
          );
          if (absent) await blobs.deletePrefix(jobFolder(id)).catch(() => undefined);
          throw error;
        });
      events.emit({ jobId: id, kind: 'created' });
      request.log.info({ job: id, tool: job.tool, files: job.inputs.length }, 'job created');
      return reply.code(201).header('Location', `/api/v1/jobs/${id}`).send(jobView(job));
    },
  });

  app.get<{ Querystring: { status?: JobStatus; tool?: string; limit: number; starting_after?: string } }>(
    '/api/v1/jobs',
    {
      config: authenticated,
      schema: jobSchemas.list,
      handler: async (request) => {
        const auth = request.auth!;
        requireScope(auth, 'jobs:read');
        const { status, tool, limit, starting_after: startingAfter } = request.query;
        // The store refuses another account's cursor with `invalid_cursor`; a deleted job of this
        // account still works, so a client paging while deleting does not lose its place.
        const page = await db.jobs.list(auth.accountId, { status, tool, limit, startingAfter });
        return { object: 'list', data: page.jobs.map(jobView), has_more: page.hasMore };
      },
    },
  );

  app.get<{ Params: { id: string }; Querystring: { wait?: number } }>('/api/v1/jobs/:id', {
    config: authenticated,
    schema: jobSchemas.get,
    handler: async (request, reply) => {
      requireScope(request.auth!, 'jobs:read');
      const waitMs = (request.query.wait ?? 0) * 1000;
      if (waitMs === 0) return jobView(await loadJob(request));
      const closed = abortOnClose(reply);
      const job = await waitForTerminal(
        db.jobs,
        events,
        request.auth!.accountId,
        request.params.id,
        waitMs,
        closed,
      );
      if (!job) throw new QuireError('not_found', 'No job with this id.');
      return jobView(job);
    },
  });

  app.get<{ Params: { id: string } }>('/api/v1/jobs/:id/download', {
    config: authenticated,
    schema: jobSchemas.download,
    handler: async (request, reply) => {
      requireScope(request.auth!, 'results:read');
      const job = await loadJob(request);
      const result = downloadableResult(job);
      const expiresAt = Math.min(
        Date.now() + config.retention.downloadLinkTtlMs,
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

  app.post<{ Params: { id: string } }>('/api/v1/jobs/:id/cancel', {
    config: authenticated,
    schema: jobSchemas.cancel,
    handler: async (request) => {
      const auth = request.auth!;
      requireScope(auth, 'jobs:write');
      const outcome = await db.jobs.cancel(auth.accountId, request.params.id);
      if (outcome.outcome === 'not_found') throw new QuireError('not_found', 'No job with this id.');
      if (outcome.outcome === 'terminal') {
        throw new QuireError('job_state_conflict', `The job is already ${outcome.job.status}.`, {
          extras: { job_status: outcome.job.status },
        });
      }
      events.emit({ jobId: outcome.job.id, kind: 'canceled' });
      return jobView(outcome.job);
    },
  });

  app.delete<{ Params: { id: string } }>('/api/v1/jobs/:id', {
    config: authenticated,
    schema: jobSchemas.remove,
    handler: async (request, reply) => {
      const auth = request.auth!;
      requireScope(auth, 'jobs:write');
      const job = await db.jobs.delete(auth.accountId, request.params.id);
      if (!job) throw new QuireError('not_found', 'No job with this id.');
      events.emit({ jobId: job.id, kind: 'canceled' });
      // Delete now rather than at the next sweep; the sweeper retries whatever fails here.
      await blobs.deletePrefix(jobFolder(job.id));
      await db.jobs.markInputsDeleted(job.id);
      if (job.result) await db.jobs.markResultDeleted(job.id);
      return reply.code(204).send();
    },
  });

  app.get<{ Params: { id: string } }>('/api/v1/jobs/:id/events', {
    config: authenticated,
    schema: jobSchemas.events,
    handler: async (request, reply) => {
      requireScope(request.auth!, 'jobs:read');
      let job = await loadJob(request);
      const closed = abortOnClose(reply);
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
        const next = await db.jobs.get(request.auth!.accountId, job.id);
        if (!next) break;
        job = next;
      }
      reply.raw.end();
    },
  });

  function downloadableResult(job: JobRecord) {
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
        if (
          !job.result ||
          job.resultDeletedAt !== null ||
          (job.expiresAt !== null && job.expiresAt <= Date.now())
        ) {
          throw new QuireError(
            'result_expired',
            'The result was deleted at the end of its retention period.',
          );
        }
        return job.result;
    }
  }
}

/** docs/api.md §4: tool, options, metadata and each file's SHA-256, in order. */
function jobFingerprint(received: ReceivedJob): string {
  return fingerprintOf({
    tool: received.entry.tool.name,
    options: received.options,
    metadata: received.metadata,
    files: received.sha256,
  });
}

async function deleteInputs(blobs: AppDeps['blobs'], inputs: ReceivedJob['inputs']): Promise<void> {
  await Promise.allSettled(inputs.map((f) => blobs.delete(f.blobKey)));
}

function prefersJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /\bapplication\/json\b/i.test(accept);
}

/**
 * An AbortSignal that fires when the client goes away, so long-polls stop early. The response's
 * 'close' is used because the request's fires as soon as its (empty) body has been read.
 */
function abortOnClose(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => controller.abort());
  return controller.signal;
}
