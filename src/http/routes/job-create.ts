// Reading a job request and creating its job, shared by POST /jobs (answers the job) and POST /run
// (answers the result): the same body, limits, quotas and Idempotency-Key handling (docs/api.md §2, §4).
import type { FastifyRequest } from 'fastify';
import { accountLimits } from '../../config/plans.js';
import { QuireError } from '../../errors/quire-error.js';
import { AccountQuotas } from '../../jobs/account-quotas.js';
import type { JobRecord } from '../../model/job.js';
import { storedSteps } from '../../model/step-secrets.js';
import { ulid } from '../../model/ulid.js';
import type { NewJob, StoredResponse } from '../../store/types.js';
import type { AppDeps } from '../deps.js';
import { completedResponse, fingerprintOf } from '../idempotency.js';
import { requestLimits } from '../job-request/limits.js';
import { readJobRequest } from '../job-request/read-job.js';
import type { ReceivedJob } from '../job-request/received.js';

/** The job the request made, or the stored answer of an earlier request with its Idempotency-Key. */
export type Created = { job: JobRecord; replay?: never } | { replay: StoredResponse; job?: never };

export async function createJobFromRequest(request: FastifyRequest, deps: AppDeps): Promise<Created> {
  const { config, catalog, blobs } = deps;
  const service = deps.services.jobs;
  const auth = request.auth!;
  const id = `job_${ulid()}`;
  const limits = accountLimits(config, auth.plan);
  const replaying = request.idempotency?.completed !== undefined;
  const quotas = new AccountQuotas({ jobs: deps.db.jobs, uploads: deps.db.uploads });
  // Before a large body is read: an account at its quota sends no bytes for nothing. A small one is
  // read first and checked once, with its bytes, below: the same answer without a second query.
  if (!replaying && !smallBody(request))
    await quotas.check(auth.accountId, limits.plan, { bytes: 0, jobs: 1 });
  const received = await readJobRequest(
    request,
    id,
    catalog,
    blobs,
    requestLimits(limits, config.webhooks.allowPrivate),
    { uploads: deps.uploads, accountId: auth.accountId, replaying },
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
  if (replay) return { replay };
  const job = await service.create(newJobOf(deps, received, id, auth.accountId), {
    takes: received.uploadTakes,
    stored: received.inputs,
  });
  request.log.info({ job: id, tool: job.tool, files: job.inputs.length }, 'job created');
  return { job };
}

/** Bodies declared at most this long are read before the quota check (createJobFromRequest). */
const SMALL_BODY_BYTES = 1024 * 1024;

function smallBody(request: FastifyRequest): boolean {
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) && declared <= SMALL_BODY_BYTES;
}

/** A declared length over the limit never gets its body consumed; only multipart is read at all. */
export function refuseBeforeReading(request: FastifyRequest, maxBytes: number): void {
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

/**
 * Bytes a job's uploaded files add to its account's storage (a `file_url` counts once fetched); an
 * `upload_id`'s bytes already count as the upload until the job takes it.
 */
export function bytesOf(received: ReceivedJob): number {
  const pending = new Set(received.uploadTakes.map((t) => t.blobKey));
  return received.inputs.reduce((sum, input) => sum + (pending.has(input.blobKey) ? 0 : input.size), 0);
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
