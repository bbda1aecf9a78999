// /api/v1/batches (docs/api.md §11): one request applies the same job spec to many files, each an
// ordinary job of the account (fair claiming, plan concurrency and limits apply to each); the batch
// reads its counts from its jobs, cancels them together and zips their results into one download.
import type { FastifyInstance, FastifyReply } from 'fastify';
import yazl from 'yazl';
import { accountLimits } from '../../config/plans.js';
import { QuireError } from '../../errors/quire-error.js';
import { AccountQuotas } from '../../jobs/account-quotas.js';
import { type BatchRecord, batchView } from '../../model/batch.js';
import type { JobRecord } from '../../model/job.js';
import { resultUsableUntil } from '../../model/job.js';
import type { AppDeps } from '../deps.js';
import { completedResponse, fingerprintOf, sendReplay } from '../idempotency.js';
import { requestLimits } from '../job-request/limits.js';
import { readBatchRequest } from '../job-request/read-batch.js';
import { batchSchemas } from './batch-schemas.js';
import { bytesOf, jobFingerprint, newJobOf } from './job-create.js';

type IdParams = { Params: { id: string } };

export function registerBatchRoutes(app: FastifyInstance, deps: AppDeps): void {
  const batches = deps.services.batches;
  registerCreate(app, deps);

  app.get<IdParams>('/api/v1/batches/:id', {
    config: { scope: 'jobs:read' },
    schema: batchSchemas.get,
    handler: async (request) => {
      const { batch, jobs } = await batches.get(request.auth!.accountId, request.params.id);
      return batchView(batch, jobs);
    },
  });

  app.post<IdParams>('/api/v1/batches/:id/cancel', {
    config: { scope: 'jobs:write' },
    schema: batchSchemas.cancel,
    handler: async (request) => {
      const { batch, jobs } = await batches.cancel(request.auth!.accountId, request.params.id);
      return batchView(batch, jobs);
    },
  });

  app.get<IdParams>('/api/v1/batches/:id/download', {
    config: { scope: 'results:read' },
    schema: batchSchemas.download,
    handler: async (request, reply) => {
      const { batch, jobs } = await batches.get(request.auth!.accountId, request.params.id);
      return sendZip(reply, deps, batch, jobs);
    },
  });
}

function registerCreate(app: FastifyInstance, deps: AppDeps): void {
  const { config, catalog, blobs } = deps;
  const { jobs: service, batches } = deps.services;
  app.post('/api/v1/batches', {
    // The fingerprint includes each file's SHA-256, known only once the upload is stored.
    config: { scope: 'jobs:write', idempotency: 'deferred' },
    schema: batchSchemas.create,
    onRequest: async (request) => {
      if (!/^multipart\/form-data\b/i.test(request.headers['content-type'] ?? ''))
        throw new QuireError('unsupported_media_type', 'Send the batch as multipart/form-data.');
    },
    handler: async (request, reply) => {
      const auth = request.auth!;
      const limits = accountLimits(config, auth.plan);
      const replaying = request.idempotency?.completed !== undefined;
      const quotas = new AccountQuotas({ jobs: deps.db.jobs, uploads: deps.db.uploads });
      if (!replaying) await quotas.check(auth.accountId, limits.plan, { bytes: 0, jobs: 1 });
      const items = await readBatchRequest(
        request,
        catalog,
        blobs,
        { ...requestLimits(limits, config.webhooks.allowPrivate), maxJobs: config.transfers.batchMaxJobs },
        { recipes: deps.db.recipes, accountId: auth.accountId },
        { uploads: deps.uploads, accountId: auth.accountId, replaying },
      );
      const discard = () => Promise.all(items.map((i) => service.discardUpload(i.received.inputs)));
      const fingerprint = fingerprintOf({ batch: items.map((i) => jobFingerprint(i.received)) });
      let replay: ReturnType<typeof completedResponse>;
      try {
        replay = completedResponse(request, fingerprint);
        // A batch is its jobs: each counts against the queue and the window, its files against storage.
        const bytes = items.reduce((sum, item) => sum + bytesOf(item.received), 0);
        if (!replay) await quotas.check(auth.accountId, limits.plan, { bytes, jobs: items.length });
      } catch (error) {
        await discard();
        throw error;
      } finally {
        if (replay || request.idempotency?.settled) await discard();
      }
      if (replay) return sendReplay(reply, replay);
      const newJobs = items.map((i) => newJobOf(deps, i.received, i.jobId, auth.accountId));
      const { batch, jobs } = await batches.create(auth.accountId, newJobs, {
        takes: items.flatMap((i) => i.received.uploadTakes),
        stored: items.flatMap((i) => i.received.inputs),
      });
      request.log.info({ batch: batch.id, jobs: items.length }, 'batch created');
      return reply.code(201).header('Location', `/api/v1/batches/${batch.id}`).send(batchView(batch, jobs));
    },
  });
}

/**
 * One ZIP of the succeeded results, streamed: each entry's blob is opened only when the archive
 * reaches it, so neither the results nor the archive are ever whole in memory. Entry names are
 * `<n>-<result name>` (n = the job's place in the batch), unique even when results share a name.
 */
function sendZip(reply: FastifyReply, deps: AppDeps, batch: BatchRecord, jobs: JobRecord[]): FastifyReply {
  const ready = jobs
    .map((job, index) => ({ job, index }))
    // Past retention, a result may be deleted by the sweeper mid-archive: left out, as its download is.
    .filter(({ job }) => resultUsableUntil(job, Date.now()));
  if (ready.length === 0)
    throw new QuireError('job_not_ready', 'No job of this batch has a result to download yet.');
  const zip = new yazl.ZipFile();
  for (const { job, index } of ready) {
    const result = job.result!;
    const name = `${String(index + 1).padStart(3, '0')}-${result.name}`;
    zip.addReadStreamLazy(name, { size: result.size, compress: false }, (cb) => {
      deps.blobs.get(result.blobKey).then(
        (stream) => cb(null, stream),
        (error: unknown) => cb(error, undefined as never),
      );
    });
  }
  zip.end();
  return reply
    .header('Content-Type', 'application/zip')
    .header('Content-Disposition', `attachment; filename="${batch.id}.zip"`)
    .header('Cache-Control', 'no-store')
    .send(zip.outputStream);
}
