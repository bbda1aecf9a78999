// A job's answer as bytes with a strong ETag (docs/api.md §2): serialised once per change of the job
// and kept for a bounded number of jobs, so a client polling a job costs one indexed read and a
// revalidation with `If-None-Match` costs no body at all.
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { JobRecord } from '../../model/job.js';
import { jobView } from '../../model/job-view.js';
import type { DocResponse } from './common-schemas.js';

const ETAG = {
  description: 'Strong validator of this job answer; it changes whenever the job does (status, progress, …).',
  required: true,
  schema: { type: 'string' },
};

/** The request header of a conditional GET, as the route's `headers` schema (documented, not required). */
export const ifNoneMatchHeader = {
  type: 'object',
  properties: {
    'If-None-Match': {
      type: 'string',
      description:
        'The `ETag` of a job answer already held: 304 without a body while the job is unchanged (RFC 9110 §13.1.2).',
    },
  },
} as const;

/** The documented 200 (`ok`, with its ETag) and 304 of a route answered through JobAnswers. */
export function conditionalAnswers(ok: DocResponse): Record<200 | 304, DocResponse> {
  return {
    200: { ...ok, extraHeaders: { ...ok.extraHeaders, ETag: ETAG } },
    304: {
      description: 'Not modified: the job is as in the answer whose `ETag` was sent in `If-None-Match`.',
      extraHeaders: { ETag: ETAG },
    },
  };
}

/** Jobs whose answer is kept; past it the least recently changed goes. */
const MAX_JOBS = 10_000;
const JSON_TYPE = 'application/json; charset=utf-8';

interface Answer {
  version: string;
  body: string;
  etag: string;
}

export class JobAnswers {
  private readonly answers = new Map<string, Answer>();

  /** Sends `job` as the route's 200, or 304 when the client already holds this representation. */
  send(reply: FastifyReply, job: JobRecord, ifNoneMatch: string | undefined): FastifyReply {
    const answer = this.answerFor(reply, job);
    reply.header('ETag', answer.etag);
    if (ifNoneMatch !== undefined && matches(ifNoneMatch, answer.etag)) return reply.code(304).send();
    return reply.type(JSON_TYPE).send(answer.body);
  }

  private answerFor(reply: FastifyReply, job: JobRecord): Answer {
    const version = versionOf(job);
    const cached = this.answers.get(job.id);
    if (cached?.version === version) return cached;
    // The route's compiled response serializer: the same bytes as returning the view would send.
    const body = String(reply.serialize(jobView(job)));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
    const answer = { version, body, etag };
    this.answers.delete(job.id);
    if (this.answers.size >= MAX_JOBS) this.answers.delete(this.answers.keys().next().value as string);
    this.answers.set(job.id, answer);
    return answer;
  }
}

/**
 * What the job's view depends on that can change after creation (docs/api.md §2: status, progress,
 * attempts, the step running, times, and the result or error a terminal status brings); the rest of
 * a job is fixed when it is created.
 */
function versionOf(job: JobRecord): string {
  return `${job.status}|${job.progress}|${job.attempts}|${job.currentStep}|${job.startedAt}|${job.completedAt}|${job.expiresAt}|${job.result?.size}|${job.error?.code}`;
}

/** RFC 9110 §13.1.2: `*` or any listed tag, compared weakly (a `W/` prefix is ignored). */
function matches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
