// The result's bytes in the answer to POST /api/v1/jobs (docs/api.md §"Prefer: wait"): a client that
// waited (`Prefer: wait`) and asked for the result's own type (`Accept: application/pdf`) gets them in
// that one exchange instead of the job document, a download link and the download.
import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { attachmentDisposition } from '../../blobs/content-disposition.js';
import { type JobRecord, type JobResult, resultUsableUntil } from '../../model/job.js';
import { jobView } from '../../model/job-view.js';
import type { AppDeps } from '../deps.js';
import { MIN_LINK_LIFETIME_MS } from './job-results.js';

/**
 * Whether `job` goes back as its result: it succeeded within the wait, the key may read results,
 * and Accept ranks the result's type above JSON. A tie (no Accept, `*∕*`) keeps the job document,
 * which generated clients expect.
 */
function answersWithResult(
  request: FastifyRequest,
  job: JobRecord,
): job is JobRecord & { result: JobResult } {
  if (!request.auth?.scopes.has('results:read')) return false;
  if (!resultUsableUntil(job, Date.now() + MIN_LINK_LIFETIME_MS)) return false;
  const type = job.result.contentType;
  const chosen = new Negotiator({ headers: { accept: request.headers.accept } }).mediaType([
    'application/json',
    type,
  ]);
  return chosen === type && type !== 'application/json';
}

/**
 * Sends `job`'s result as a 200 when the request asked for it and it is there; false leaves the
 * answer (the 201 with the job) to the caller. A replay with the same Idempotency-Key gets that 201,
 * since the bytes are not stored with the key.
 */
export async function sendResultIfWanted(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AppDeps,
  job: JobRecord,
): Promise<boolean> {
  if (!answersWithResult(request, job)) return false;
  const { result } = job;
  const body = await deps.blobs.get(result.blobKey);
  const location = `/api/v1/jobs/${job.id}`;
  if (request.idempotency) {
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', location };
    const applied = reply.getHeader('preference-applied');
    if (applied !== undefined) headers['preference-applied'] = String(applied);
    request.idempotency.storedInstead = {
      status: 201,
      headers,
      body: Buffer.from(JSON.stringify(jobView(job))),
    };
  }
  reply
    .code(200)
    .header('Location', location)
    .header('Content-Type', result.contentType)
    .header('Content-Length', String(result.size))
    .header('Content-Disposition', attachmentDisposition(result.name))
    .header('Cache-Control', 'no-store');
  await reply.send(body);
  return true;
}
