// GET/HEAD /api/v1/files/{token}: the local-disk temporary link (docs/api.md §2). The token is the
// capability: no API key, HMAC-checked, expiring; Range and HEAD supported; never logged.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import rangeParser from 'range-parser';
import { attachmentDisposition } from '../../blobs/content-disposition.js';
import { verifyFileToken } from '../../blobs/signed-url.js';
import { QuireError } from '../../errors/quire-error.js';
import type { AppDeps } from '../deps.js';
import { fileSchema } from './ops-schemas.js';

export function registerFileRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Params: { token: string } }>('/api/v1/files/:token', {
    // The token is the capability: no API key.
    config: { scope: 'public' },
    schema: fileSchema,
    handler: async (request, reply) => {
      const payload = verifyFileToken(request.params.token, deps.keys.fileTokenKey);
      if (!payload)
        throw new QuireError(
          'link_invalid',
          'The link is invalid or has expired; request a new one from the job.',
        );
      // A whole-file GET opens the object while it is stat'ed: right after a job ends, the worker's
      // cleanup fills the file-system thread pool, and two calls waiting in turn cost twice.
      const whole = request.method === 'GET' && request.headers.range === undefined;
      const opening = whole ? deps.blobs.get(payload.key) : undefined;
      opening?.catch(() => undefined);
      const info = await deps.blobs.stat(payload.key).catch(async (error: unknown) => {
        await discard(opening);
        throw error;
      });
      if (!info) {
        await discard(opening);
        throw new QuireError('result_expired', 'The file behind this link no longer exists.');
      }

      reply
        .header('Content-Type', payload.contentType)
        .header('Content-Disposition', attachmentDisposition(payload.filename))
        .header('ETag', info.etag)
        .header('Accept-Ranges', 'bytes')
        .header('Cache-Control', 'private, no-store')
        .header('X-Content-Type-Options', 'nosniff');

      let range: { start: number; end: number } | undefined;
      const header = request.headers.range;
      const ifRange = request.headers['if-range'];
      if (header !== undefined && (ifRange === undefined || ifRange === info.etag)) {
        const parsed = rangeParser(info.size, header, { combine: true });
        if (parsed === -1) {
          reply.header('Content-Range', `bytes */${info.size}`);
          throw new QuireError('range_not_satisfiable', 'The range lies outside the file.');
        }
        // Multiple ranges would need multipart/byteranges; serving the first is allowed (RFC 9110 §14.2).
        if (parsed !== -2 && parsed.type === 'bytes' && parsed.length > 0) range = parsed[0];
      }

      if (range) {
        reply.code(206).header('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`);
        reply.header('Content-Length', range.end - range.start + 1);
      } else {
        reply.header('Content-Length', info.size);
      }
      // An empty stream keeps our Content-Length; Fastify's HEAD handling then sends no body.
      if (request.method === 'HEAD') return reply.send(Readable.from([]));
      return reply.send(await (opening ?? deps.blobs.get(payload.key, range)));
    },
  });
}

/** Closes a stream opened for an answer that will not be sent. */
async function discard(opening: Promise<Readable> | undefined): Promise<void> {
  (await opening?.catch(() => undefined))?.destroy();
}
