// /api/v1/jobs: create (multipart), read with long-poll, list, cancel, delete. Handlers adapt HTTP to
// the job service (`deps.services.jobs`), which owns the writes, the blobs and the notices; they read
// the store's read views and write nothing themselves. The download link and the event stream are in
// job-results.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { QuireError } from '../../errors/quire-error.js';
import type { JobService } from '../../jobs/job-service.js';
import { waitForTerminal } from '../../jobs/wait.js';
import type { JobRecord, JobStatus } from '../../model/job.js';
import { jobView } from '../../model/job-view.js';
import type { AppDeps } from '../deps.js';
import { sendReplay } from '../idempotency.js';
import { preferredWait } from '../prefer.js';
import { OpenStreams } from '../stream-slots.js';
import { JobAnswers } from './job-answer.js';
import { createJobFromRequest, refuseBeforeReading } from './job-create.js';
import { registerJobResultRoutes } from './job-results.js';
import { jobSchemas } from './job-schemas.js';
import { registerRunRoute } from './run.js';
import { registerUploadRoutes } from './uploads.js';

type ListQuery = { status?: JobStatus; tool?: string; limit: number; starting_after?: string };

export function registerJobRoutes(app: FastifyInstance, deps: AppDeps): void {
  const service = deps.services.jobs;
  const streams = new OpenStreams(deps.db.accounts, {
    maxPerKey: deps.config.http.streamsMaxPerKey,
    maxPerAccount: deps.config.http.streamsMaxPerAccount,
  });
  registerCreate(app, deps, streams);
  registerReads(app, deps, streams);
  registerChanges(app, service);
  registerJobResultRoutes(app, deps, streams);
  // The one-request flow (POST /run) shares the create's reading and the long-polls' slots.
  registerRunRoute(app, deps, streams);
  // Resumable uploads feed job creation (`upload_id`); their routes live beside it.
  registerUploadRoutes(app, deps);
}

function registerCreate(app: FastifyInstance, deps: AppDeps, streams: OpenStreams): void {
  app.post('/api/v1/jobs', {
    // The fingerprint includes each file's SHA-256, known only once the upload is stored.
    config: { scope: 'jobs:write', idempotency: 'deferred' },
    schema: jobSchemas.create,
    // Runs after the app's auth hook has checked the key and its scope, before the body is read.
    onRequest: async (request) => refuseBeforeReading(request, deps.config.limits.uploadMaxTotalBytes),
    handler: async (request, reply) => {
      const { job, replay } = await createJobFromRequest(request, deps);
      if (replay) return sendReplay(reply, replay);
      const shown = await waitAsPreferred(request, reply, deps, job, streams);
      return reply.code(201).header('Location', `/api/v1/jobs/${job.id}`).send(jobView(shown));
    },
  });
}

/**
 * `Prefer: wait=N` (RFC 7240): the job as it stands when it ends or the (capped) wait runs out, with
 * `Preference-Applied` saying the wait honoured; still 201, since the job was created either way.
 * The wait is a long-poll: with the key's or account's streams all open, it is not honoured (a
 * preference may be ignored) rather than refused, since the job already exists.
 */
async function waitAsPreferred(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AppDeps,
  job: JobRecord,
  streams: OpenStreams,
): Promise<JobRecord> {
  const seconds = preferredWait(request.headers.prefer, deps.config.http.preferWaitMaxS);
  if (seconds === undefined) return job;
  const signal = streams.tryTake(request.auth!, reply);
  if (!signal) return job;
  reply.header('Preference-Applied', `wait=${seconds}`);
  const waited = await waitForTerminal(
    deps.db.jobs,
    deps.events,
    job.accountId,
    job.id,
    seconds * 1000,
    signal,
  );
  return waited ?? job;
}

function registerReads(app: FastifyInstance, deps: AppDeps, streams: OpenStreams): void {
  const { db, events } = deps;
  const answers = new JobAnswers();
  app.get<{ Querystring: ListQuery }>('/api/v1/jobs', {
    config: { scope: 'jobs:read' },
    schema: jobSchemas.list,
    handler: async (request) => {
      const { status, tool, limit, starting_after: startingAfter } = request.query;
      // The store refuses another account's cursor with `invalid_cursor`; a deleted job of this
      // account still works, so a client paging while deleting does not lose its place.
      const page = await db.jobs.list(request.auth!.accountId, { status, tool, limit, startingAfter });
      return { object: 'list', data: page.jobs.map(jobView), has_more: page.hasMore };
    },
  });

  app.get<{ Params: { id: string }; Querystring: { wait?: number } }>('/api/v1/jobs/:id', {
    config: { scope: 'jobs:read' },
    schema: jobSchemas.get,
    handler: async (request, reply) => {
      const waitMs = (request.query.wait ?? 0) * 1000;
      const accountId = request.auth!.accountId;
      if (waitMs === 0) {
        const job = await db.jobs.get(accountId, request.params.id);
        if (!job) throw new QuireError('not_found', 'No job with this id.');
        return answers.send(reply, job, request.headers['if-none-match']);
      }
      const signal = streams.take(request.auth!, reply);
      const job = await waitForTerminal(db.jobs, events, accountId, request.params.id, waitMs, signal);
      // The key was revoked or expired while the request waited: it gets what a new request would.
      if (signal.reason instanceof QuireError) throw signal.reason;
      if (!job) throw new QuireError('not_found', 'No job with this id.');
      return answers.send(reply, job, request.headers['if-none-match']);
    },
  });
}

function registerChanges(app: FastifyInstance, service: JobService): void {
  app.post<{ Params: { id: string } }>('/api/v1/jobs/:id/cancel', {
    config: { scope: 'jobs:write' },
    schema: jobSchemas.cancel,
    handler: async (request) => jobView(await service.cancel(request.auth!.accountId, request.params.id)),
  });

  app.delete<{ Params: { id: string } }>('/api/v1/jobs/:id', {
    config: { scope: 'jobs:write' },
    schema: jobSchemas.remove,
    handler: async (request, reply) => {
      await service.remove(request.auth!.accountId, request.params.id);
      return reply.code(204).send();
    },
  });
}
