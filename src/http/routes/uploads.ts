// /api/v1/uploads: the tus 1.0 endpoints, served by @tus/server (src/uploads/) inside the app so that
// Quire's auth, scopes, rate limits, idle timeout and upload slots apply to them like to any route.
// The chunk body is left unread for tus to stream into its store.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountLimits } from '../../config/plans.js';
import { QuireError } from '../../errors/quire-error.js';
import { runInTusContext } from '../../uploads/request-context.js';
import { UPLOADS_PATH } from '../../uploads/tus-server.js';
import type { AppDeps } from '../deps.js';
import { uploadSchemas } from './upload-schemas.js';

/** tus checksum extension: the one algorithm offered (tus 1.0 "Checksum"). */
const CHECKSUM = /^sha256 ([A-Za-z0-9+/]{43}=)$/;

export function registerUploadRoutes(app: FastifyInstance, deps: AppDeps): void {
  const serve = (request: FastifyRequest, reply: FastifyReply) => handOver(request, reply, deps);
  void app.register(async (scope) => {
    // The chunk stays a stream: tus reads it straight into the data store, bounded by Upload-Length.
    scope.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) =>
      done(null, undefined),
    );
    const write = { scope: 'jobs:write' as const, tusBody: true };
    scope.post(UPLOADS_PATH, { config: write, schema: uploadSchemas.create, handler: serve });
    scope.patch(`${UPLOADS_PATH}/:id`, { config: write, schema: uploadSchemas.patch, handler: serve });
    scope.head(`${UPLOADS_PATH}/:id`, { config: write, schema: uploadSchemas.head, handler: serve });
    scope.delete(`${UPLOADS_PATH}/:id`, { config: write, schema: uploadSchemas.remove, handler: serve });
    // Discovery needs no key (tus clients send it before anything else).
    scope.options(UPLOADS_PATH, {
      config: { scope: 'public' },
      schema: uploadSchemas.options,
      handler: serve,
    });
  });
}

async function handOver(request: FastifyRequest, reply: FastifyReply, deps: AppDeps): Promise<void> {
  const { auth } = request;
  const maxFileBytes = auth ? accountLimits(deps.config, auth.plan).maxFileBytes : 0;
  if (request.method === 'POST') refuseOverLimit(request, maxFileBytes, auth?.plan ?? '');
  const sha256 = checksumOf(request);
  // Headers set so far (request id, rate limit) go out with tus's answer.
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  if (request.method === 'OPTIONS') reply.raw.setHeader('Tus-Checksum-Algorithm', 'sha256');
  reply.hijack();
  const context = { accountId: auth?.accountId ?? '', maxFileBytes, ...(sha256 ? { sha256 } : {}) };
  await runInTusContext(context, () => deps.uploads.tus.handle(request.raw, reply.raw));
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
