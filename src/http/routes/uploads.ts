// /api/v1/uploads: the tus 1.0 endpoints, served by @tus/server (src/uploads/) inside the app so that
// Quire's auth, scopes, rate limits, idle timeout and upload slots apply to them like to any route.
// The chunk body is left unread for tus to stream into its store; tus's refusals become problem+json.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountLimits } from '../../config/plans.js';
import type { ErrorCode } from '../../errors/catalogue.js';
import { QuireError } from '../../errors/quire-error.js';
import { AccountQuotas } from '../../jobs/account-quotas.js';
import { runInTusContext } from '../../uploads/request-context.js';
import { UPLOADS_PATH } from '../../uploads/tus-server.js';
import type { AppDeps } from '../deps.js';
import { uploadSchemas } from './upload-schemas.js';

/** tus checksum extension: the one algorithm offered (tus 1.0 "Checksum"). */
const CHECKSUM = /^sha256 ([A-Za-z0-9+/]{43}=)$/;

const TUS_CREATION_HEADERS = [
  'upload-length',
  'upload-defer-length',
  'upload-metadata',
  'upload-checksum',
  'upload-concat',
  'content-type',
];

export function registerUploadRoutes(app: FastifyInstance, deps: AppDeps): void {
  const serve = (request: FastifyRequest, reply: FastifyReply) => handOver(request, reply, deps);
  // The chunk stays a stream: tus reads it straight into the data store, bounded by Upload-Length.
  // No other route takes this type (the job request refuses anything but multipart first).
  app.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) =>
    done(null, undefined),
  );
  const write = { scope: 'jobs:write' as const, tusBody: true };
  // An upload's creation is asked in its headers: the same key with another length or file name is
  // another request (422 idempotency_key_reused), not a replay of the first.
  const create = { ...write, idempotencyHeaders: TUS_CREATION_HEADERS };
  app.post(UPLOADS_PATH, { config: create, schema: uploadSchemas.create, handler: serve });
  app.patch(`${UPLOADS_PATH}/:id`, { config: write, schema: uploadSchemas.patch, handler: serve });
  app.head(`${UPLOADS_PATH}/:id`, { config: write, schema: uploadSchemas.head, handler: serve });
  app.delete(`${UPLOADS_PATH}/:id`, { config: write, schema: uploadSchemas.remove, handler: serve });
  // Discovery needs no key (tus clients send it before anything else).
  app.options(UPLOADS_PATH, { config: { scope: 'public' }, schema: uploadSchemas.options, handler: serve });
}

async function handOver(request: FastifyRequest, reply: FastifyReply, deps: AppDeps): Promise<void> {
  // On every answer, refusals included (tus 1.0: every response but OPTIONS carries it).
  reply.header('Tus-Resumable', '1.0.0');
  const { auth } = request;
  const maxFileBytes = auth ? accountLimits(deps.config, auth.plan).maxFileBytes : 0;
  if (request.method !== 'OPTIONS') requireTusVersion(request, reply);
  if (request.method === 'POST') refuseOverLimit(request, maxFileBytes, auth?.plan ?? '');
  if (request.method === 'POST' && auth) {
    // The declared length is held against the storage quota from creation: bytes not yet sent are
    // bytes the account has asked the server to keep.
    const quotas = new AccountQuotas({ jobs: deps.db.jobs, uploads: deps.db.uploads });
    const bytes = Number(request.headers['upload-length']) || 0;
    await quotas.check(auth.accountId, accountLimits(deps.config, auth.plan).plan, { bytes, jobs: 0 });
  }
  const sha256 = checksumOf(request);
  const context = {
    accountId: auth?.accountId ?? '',
    maxFileBytes,
    ...(sha256 ? { sha256 } : {}),
    // The chunk stays in the Node request: the tus server reads it from there (src/uploads/chunk-body.ts).
    ...(request.method === 'POST' || request.method === 'PATCH' ? { body: request.raw } : {}),
  };
  const answer = await runInTusContext(context, () => deps.uploads.tus.handleWeb(webRequest(request, reply)));
  if (answer.status >= 400) throw await problemOf(answer);
  for (const [name, value] of answer.headers) reply.header(name, value);
  if (request.method === 'OPTIONS') reply.header('Tus-Checksum-Algorithm', 'sha256');
  return reply.code(answer.status).send();
}

/**
 * The request as the Web Request @tus/server handles, without a body: the chunk goes from the Node
 * request to the store (the context's `body`). `runtime.node` is how @tus/server finds the Node
 * request: a cut or dropped connection then ends the chunk's write cleanly, keeping the bytes that
 * arrived (srvx's Node adapter sets the same).
 */
function webRequest(request: FastifyRequest, reply: FastifyReply): Request {
  const raw = request.raw;
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const web = new Request(`http://quire${raw.url}`, { method: request.method, headers });
  return Object.assign(web, { runtime: { node: { req: raw, res: reply.raw } } });
}

/** tus's refusals by status, as problem+json like every other error (docs/errors.md). */
const TUS_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  403: 'invalid_request',
  404: 'not_found',
  409: 'upload_offset_mismatch',
  410: 'upload_expired',
  412: 'tus_version_unsupported',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  460: 'checksum_mismatch',
  501: 'invalid_request',
};

async function problemOf(answer: Response): Promise<QuireError> {
  // tus's bodies are its own fixed sentences, never request data.
  const detail = (await answer.text()).trim();
  const headers: Record<string, string> = { 'Tus-Resumable': '1.0.0' };
  if (answer.headers.get('connection') === 'close') headers.Connection = 'close';
  const code = TUS_CODES[answer.status] ?? 'internal_error';
  return new QuireError(code, detail === '' ? undefined : detail, { headers });
}

/**
 * tus 1.0 "Tus-Resumable": a version this server does not speak is 412 with Tus-Version. A missing
 * (or empty) header is a malformed request, 400 as for any required header. (@tus/server answers the two the
 * other way round, so both are settled here before it sees the request.)
 */
function requireTusVersion(request: FastifyRequest, reply: FastifyReply): void {
  const version = request.headers['tus-resumable'];
  // An empty header says no version at all: missing, not another one.
  if (version === undefined || String(version).trim() === '') {
    throw new QuireError('invalid_request', 'Send Tus-Resumable: 1.0.0 with every tus request but OPTIONS.', {
      errors: [{ field: 'Tus-Resumable', detail: 'required' }],
    });
  }
  if (version !== '1.0.0') {
    reply.header('Tus-Version', '1.0.0');
    throw new QuireError('tus_version_unsupported', 'This server speaks tus 1.0.0 only.');
  }
}

/** Before tus creates anything: problem+json naming the limit, as for a multipart upload. */
function refuseOverLimit(request: FastifyRequest, maxFileBytes: number, plan: string): void {
  if (request.headers['upload-defer-length'] !== undefined)
    throw new QuireError('invalid_request', 'Send Upload-Length: deferred lengths are not supported.');
  const declared = Number(request.headers['upload-length']);
  if (Number.isFinite(declared) && declared > maxFileBytes) {
    throw new QuireError(
      'payload_too_large',
      `The upload is larger than ${maxFileBytes} bytes, the most the "${plan}" plan allows per file.`,
      { extras: { limit_bytes: maxFileBytes, plan }, headers: { Connection: 'close' } },
    );
  }
}

function checksumOf(request: FastifyRequest): string | undefined {
  const header = request.headers['upload-checksum'];
  if (header === undefined) return undefined;
  const match = typeof header === 'string' ? CHECKSUM.exec(header) : null;
  // tus 1.0: an unsupported algorithm is 400.
  if (!match)
    throw new QuireError('invalid_request', 'Upload-Checksum must be "sha256 <base64 digest>".', {
      errors: [{ field: 'Upload-Checksum', detail: 'only sha256 is supported' }],
    });
  return match[1];
}
