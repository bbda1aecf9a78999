// RFC 9457 problem+json for every error, including framework ones (404, 405, multipart, body limits).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorCode, errorCatalogue, errorTypeUri } from '../errors/catalogue.js';
import { QuireError } from '../errors/quire-error.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export function problemBody(error: QuireError, request: FastifyRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: errorTypeUri(error.code),
    title: errorCatalogue[error.code].title,
    status: error.status,
    detail: error.detail,
    // The route template, not the raw path: raw paths can carry download tokens. A request no route
    // matched has no template; this occurrence is then named by its request id (RFC 9457 §3.1.5).
    instance: request.routeOptions.url ?? `urn:quire:request:${request.id}`,
    code: error.code,
    request_id: request.id,
    ...error.extras,
  };
  if (error.errors) body.errors = error.errors;
  return body;
}

/**
 * A whole HTTP/1.1 response for errors answered on the bare socket, before or outside Fastify
 * (Node's own parser errors, a cut upload): the same problem document, and the connection closes.
 */
export function rawProblemResponse(error: QuireError, requestId: string): string {
  const body = JSON.stringify({
    type: errorTypeUri(error.code),
    title: errorCatalogue[error.code].title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    request_id: requestId,
  });
  return [
    `HTTP/1.1 ${error.status} ${STATUS_TEXT[error.status] ?? 'Error'}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

const STATUS_TEXT: Partial<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Content Too Large',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
};

export function sendProblem(reply: FastifyReply, error: QuireError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(problemBody(error, reply.request));
}

/** Maps framework and plugin errors to catalogue codes; anything unknown is a 500 with no detail. */
export function toQuireError(error: unknown): QuireError {
  if (error instanceof QuireError) return error;
  const e = error as Partial<FastifyError> & { part?: string };
  switch (e.code) {
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new QuireError('unsupported_media_type', 'Send the job as multipart/form-data.');
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new QuireError('payload_too_large', 'The request body is larger than allowed.', {
        headers: { Connection: 'close' },
      });
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new QuireError('too_many_files');
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return new QuireError(
        'invalid_multipart',
        'A part sent as application/json is not valid JSON, or is larger than 256 KiB.',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new QuireError('uri_too_long', 'A path segment is longer than 4096 characters.');
    case 'FST_ERR_BAD_URL':
      return new QuireError('invalid_request', 'The URL path is not validly percent-encoded.');
    case 'FST_FIELDS_LIMIT':
    case 'FST_PROTO_VIOLATION':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new QuireError('invalid_request', 'The request body is malformed.');
    // PostgreSQL refusing a NUL character in a text value (SQLite stores it): the input's fault.
    case '22021':
      return new QuireError('invalid_request', 'Text values must not contain NUL characters.');
  }
  const multipart = multipartSyntaxError(e);
  if (multipart) return multipart;
  if (e.validation) {
    return new QuireError('invalid_request', 'The request is not valid.', {
      errors: e.validation.map((v) => ({
        pointer: `${e.validationContext === 'querystring' ? '/query' : ''}${v.instancePath}`,
        detail: v.message ?? 'is invalid',
      })),
    });
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    // Busboy and Fastify report malformed bodies with 4xx statuses and their own messages;
    // the message may echo request bytes, so clients get only the catalogue title.
    const byStatus: Partial<Record<number, ErrorCode>> = {
      404: 'not_found',
      405: 'method_not_allowed',
      406: 'unsupported_media_type',
      413: 'payload_too_large',
      415: 'unsupported_media_type',
    };
    return new QuireError(byStatus[e.statusCode] ?? 'invalid_request');
  }
  return new QuireError(
    'internal_error',
    'Something went wrong on our side; the request id identifies it in our logs.',
  );
}

/**
 * Busboy reports broken multipart syntax as plain Errors with no code; these messages (its only
 * signal) are matched here and nowhere else. They name the fault, never request bytes.
 */
function multipartSyntaxError(e: { message?: string; code?: string }): QuireError | undefined {
  if (e.code !== undefined || typeof e.message !== 'string') return undefined;
  if (e.message === 'Multipart: Boundary not found')
    return new QuireError('invalid_multipart', 'The Content-Type has no multipart boundary parameter.');
  if (/terminated early due to unexpected end of multipart data$/.test(e.message))
    return new QuireError('invalid_multipart', 'The body ended before the closing multipart boundary.');
  // The boundary search needle ('\r\n--' + boundary) is capped at 256 bytes; RFC 2046 allows 70.
  if (e.message === 'The needle cannot have a length bigger than 256.')
    return new QuireError('invalid_multipart', 'The multipart boundary is longer than 70 characters.');
  if (e.message === 'Malformed part header')
    return new QuireError('invalid_multipart', 'A part has a malformed header.');
  return undefined;
}
