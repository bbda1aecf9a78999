// /api/v1/jobs: create (multipart), read with long-poll, list, cancel, delete. Handlers adapt HTTP to
// the job service (`deps.services.jobs`), which owns the writes, the blobs and the notices; they read
// the store's read views and write nothing themselves. The download link and the event stream are in
// job-results.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountLimits } from '../../config/plans.js';
import { QuireError } from '../../errors/quire-error.js';
import { AccountQuotas } from '../../jobs/account-quotas.js';
import type { JobService } from '../../jobs/job-service.js';
import { waitForTerminal } from '../../jobs/wait.js';
import type { JobRecord, JobStatus } from '../../model/job.js';
import { jobView } from '../../model/job-view.js';
import { storedSteps } from '../../model/step-secrets.js';
import { ulid } from '../../model/ulid.js';
import type { NewJob, StoredResponse } from '../../store/types.js';
import type { AppDeps } from '../deps.js';
import { completedResponse, fingerprintOf, sendReplay } from '../idempotency.js';
import { requestLimits } from '../job-request/limits.js';
import { readJobRequest } from '../job-request/read-job.js';
import type { ReceivedJob } from '../job-request/received.js';
import { preferredWait } from '../prefer.js';
import { OpenStreams } from '../stream-slots.js';
import { JobAnswers } from './job-answer.js';
import { registerJobResultRoutes } from './job-results.js';
import { jobSchemas } from './job-schemas.js';
import { registerUploadRoutes } from './uploads.js';

type ListQuery = { status?: JobStatus; tool?: string; limit: number; starting_after?: string };

export function registerJobRoutes(app: FastifyInstance, deps: AppDeps): void {
  const service = deps.services.jobs;
  const streams = new OpenStreams(deps.db.accounts, {
    maxPerKey: deps.config.http.streamsMaxPerKey,
    maxPerAccount: deps.config.http.streamsMaxPerAccount,
  });
  registerCreate(app, deps, service, streams);
  registerReads(app, deps, streams);
  registerChanges(app, service);
  registerJobResultRoutes(app, deps, streams);
  // Resumable uploads feed job creation (`upload_id`); their routes live beside it.
  registerUploadRoutes(app, deps);
}

function registerCreate(
  app: FastifyInstance,
  deps: AppDeps,
  service: JobService,
  streams: OpenStreams,
): void {
  const { config, catalog, blobs } = deps;
  app.post('/api/v1/jobs', {
    // The fingerprint includes each file's SHA-256, known only once the upload is stored.
    config: { scope: 'jobs:write', idempotency: 'deferred' },
    schema: jobSchemas.create,
    // Runs after the app's auth hook has checked the key and its scope, before the body is read.
    onRequest: async (request) => refuseBeforeReading(request, config.limits.uploadMaxTotalBytes),
    handler: async (request, reply) => {
      const auth = request.auth!;
      const id = `job_${ulid()}`;
      const limits = accountLimits(config, auth.plan);
      const replaying = request.idempotency?.completed !== undefined;
      const quotas = new AccountQuotas({ jobs: deps.db.jobs, uploads: deps.db.uploads });
      // Before the body is read: an account at its quota sends no bytes for nothing.
      if (!replaying) await quotas.check(auth.accountId, limits.plan, { bytes: 0, jobs: 1 });
      const received = await readJobRequest(
        request,
        id,
        catalog,
        blobs,
        requestLimits(limits, config.webhooks.allowPrivate),
        {
          uploads: deps.uploads,
          accountId: auth.accountId,
          replaying,
        },
        { recipes: deps.db.recipes, accountId: auth.accountId },
      );
      let replay: StoredResponse | undefined;
      try {
        replay = completedResponse(request, jobFingerprint(received));
        if (!replay) await quotas.check(auth.accountId, limits.plan, { bytes: bytesOf(received), jobs: 1 });
      } catch (error) {
        await service.discardUpload(received.inputs);
        throw error;
      } finally {
        // A replayed (or refused) upload is not a job: its stored files go before the answer
        // (docs/api.md §4), so a client never sees them.
        if (replay || request.idempotency?.settled) await service.discardUpload(received.inputs);
      }
      if (replay) return sendReplay(reply, replay);
      const job = await service.create(newJobOf(deps, received, id, auth.accountId), {
        takes: received.uploadTakes,
        stored: received.inputs,
      });
      request.log.info({ job: id, tool: job.tool, files: job.inputs.length }, 'job created');
      const shown = await waitAsPreferred(request, reply, deps, job, streams);
      return reply.code(201).header('Location', `/api/v1/jobs/${id}`).send(jobView(shown));
    },
  });
}

/**
 * Bytes a job's uploaded files add to its account's storage (a `file_url` counts once fetched); an
 * `upload_id`'s bytes already count as the upload until the job takes it.
 */
export function bytesOf(received: ReceivedJob): number {
  const pending = new Set(received.uploadTakes.map((t) => t.blobKey));
  return received.inputs.reduce((sum, input) => sum + (pending.has(input.blobKey) ? 0 : input.size), 0);
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

/** A declared length over the limit never gets its body consumed; only multipart is read at all. */
function refuseBeforeReading(request: FastifyRequest, maxBytes: number): void {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new QuireError('payload_too_large', `The upload is larger than ${maxBytes} bytes.`, {
      extras: { limit_bytes: maxBytes },
      headers: { Connection: 'close' },
    });
  }
  if (!/^multipart\/form-data\b/i.test(request.headers['content-type'] ?? ''))
    throw new QuireError('unsupported_media_type', 'Send the job as multipart/form-data.');
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

/**
 * docs/api.md §4: tool, options, the steps after the first (or the `recipe` part as sent, so a retry
 * after the recipe was replaced is still the same request), metadata, each file's SHA-256 in order,
 * and the transfer parts.
 */
export function jobFingerprint(received: ReceivedJob): string {
  const { nextSteps } = received;
  if (received.recipeRef !== undefined) {
    return fingerprintOf({
      recipe: received.recipeRef,
      metadata: received.metadata,
      files: received.sha256,
      transfers: received.transfersFingerprint,
    });
  }
  return fingerprintOf({
    tool: received.entry.tool.name,
    options: received.options,
    // Only when there are any, so a one-tool job's fingerprint is what it was before steps.
    ...(nextSteps && nextSteps.length > 0 ? { steps: nextSteps } : {}),
    metadata: received.metadata,
    files: received.sha256,
    transfers: received.transfersFingerprint,
  });
}

/** The job a received request describes; the batch path makes one per file (the service adds `batchId`). */
export function newJobOf(
  deps: Pick<AppDeps, 'catalog'>,
  received: ReceivedJob,
  id: string,
  accountId: string,
): NewJob {
  const { transfers, secrets, webhookUrl } = received.transfers;
  const hasSecrets = secrets.imports.length > 0 || secrets.export !== null;
  return {
    id,
    accountId,
    tool: received.entry.tool.name,
    ...storedSteps(
      { options: received.options, secretOptions: received.entry.tool.secretOptions ?? [] },
      received.nextSteps ?? [],
      (tool) => deps.catalog.get(tool)?.tool.secretOptions ?? [],
    ),
    metadata: received.metadata,
    inputs: received.inputs,
    createdAt: Date.now(),
    ...(received.recipe ? { recipe: received.recipe } : {}),
    ...(hasSecrets || webhookUrl ? { transfers } : {}),
    ...(hasSecrets ? { transferSecrets: secrets } : {}),
    ...(webhookUrl ? { webhookUrl } : {}),
  };
}
