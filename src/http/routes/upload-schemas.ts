// Route schemas for /uploads, the tus 1.0 endpoints (docs/api.md "Resumable uploads"): request and
// response headers for the document. Every refusal is problem+json, the protocol's included.
import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../errors/catalogue.js';
import { type DocResponse, noContent, problem } from './common-schemas.js';

type Responses = Record<number, DocResponse>;

const tags = ['Uploads'];
const UPLOAD_ID = '^upl_[0-9A-HJKMNP-TV-Z]{26}$';
const uploadParams = Type.Object({
  id: Type.String({ pattern: UPLOAD_ID, description: 'The upload (`upl_` + ULID), from `Location`.' }),
});

const header = (description: string, schema: Record<string, unknown>, required = false) => ({
  description,
  required,
  schema,
});
// A plain string, not a `const`: generated clients (openapi-python-client) refuse literal headers.
const tusResumable = header('The protocol version: `1.0.0`.', { type: 'string', examples: ['1.0.0'] }, true);
const offset = header('Bytes received so far.', { type: 'integer', minimum: 0 }, true);
/** On creation only with creation-with-upload (a first chunk in the body). */
const firstOffset = header('Bytes of the first chunk stored, when the body carried one.', {
  type: 'integer',
  minimum: 0,
});
const expires = header('When an unfinished upload is deleted (RFC 9110 date).', { type: 'string' });
/** A refusal of the tus protocol, as problem+json with the protocol's version header. */
const tusProblem = (codes: ErrorCode[]): DocResponse => ({
  ...problem(codes),
  extraHeaders: { 'Tus-Resumable': tusResumable },
});
const notFound = tusProblem(['not_found']);
/** A Tus-Resumable this server does not speak (a missing one is 400); Tus-Version names ours. */
const versionRefused: DocResponse = {
  ...problem(['tus_version_unsupported']),
  extraHeaders: {
    'Tus-Resumable': tusResumable,
    'Tus-Version': header('`1.0.0`.', { type: 'string' }, true),
  },
};

/** Request headers of the tus endpoints, as OpenAPI header parameters. */
const requestHeaders = {
  'Tus-Resumable': tusResumable,
  'Upload-Length': header('The whole file’s size in bytes; over the plan’s file limit is 413.', {
    type: 'integer',
    minimum: 0,
  }),
  'Upload-Metadata': header('tus metadata: `key base64value` pairs, comma-separated (e.g. `filename`).', {
    type: 'string',
  }),
  'Upload-Offset': header('Where this chunk starts; must equal the upload’s offset (else 409).', {
    type: 'integer',
    minimum: 0,
  }),
  'Upload-Checksum': header('`sha256 <base64 digest>` of this request’s body; a mismatch is 460.', {
    type: 'string',
  }),
};

const chunkBody = {
  required: false,
  content: { 'application/offset+octet-stream': { schema: { type: 'string', format: 'binary' } } },
};

export const uploadSchemas = {
  create: {
    operationId: 'createUpload',
    tags,
    summary: 'Create a resumable upload (tus)',
    description:
      'tus 1.0 creation (and creation-with-upload: a first chunk may come in the body). `Upload-Length` is required; deferred lengths are not supported. The upload belongs to the caller’s account and is used by naming its id in a job’s `upload_id` part.',
    docHeaders: pick('Tus-Resumable', 'Upload-Length', 'Upload-Metadata', 'Upload-Checksum'),
    docBody: chunkBody,
    responses: {
      201: {
        description: 'Created; `Location` is the upload’s URL.',
        headers: ['Location'],
        extraHeaders: {
          'Tus-Resumable': tusResumable,
          'Upload-Offset': firstOffset,
          'Upload-Expires': expires,
        },
      },
      412: versionRefused,
      413: tusProblem(['payload_too_large', 'storage_quota_exceeded']),
      460: tusProblem(['checksum_mismatch']),
    } satisfies Responses,
  },
  head: {
    operationId: 'getUploadOffset',
    tags,
    summary: 'Read an upload’s offset (tus)',
    description: 'Where to resume: `Upload-Offset` is the number of bytes stored.',
    params: uploadParams,
    docHeaders: pick('Tus-Resumable'),
    responses: {
      200: {
        description: 'The upload’s state.',
        extraHeaders: {
          'Tus-Resumable': tusResumable,
          'Upload-Offset': offset,
          'Upload-Length': header('The declared size.', { type: 'integer' }),
          'Cache-Control': header('Always `no-store`.', { type: 'string' }),
        },
      },
      404: notFound,
      410: tusProblem(['upload_expired']),
      412: versionRefused,
    } satisfies Responses,
  },
  patch: {
    operationId: 'appendUpload',
    tags,
    summary: 'Send a chunk (tus)',
    description:
      'Appends the body at `Upload-Offset`. A dropped connection keeps what arrived (send `HEAD` and resume), except for a chunk with `Upload-Checksum`, which is stored whole or not at all.',
    params: uploadParams,
    docHeaders: pick('Tus-Resumable', 'Upload-Offset', 'Upload-Checksum'),
    docBody: { ...chunkBody, required: true },
    responses: {
      204: {
        description: 'Stored; `Upload-Offset` is the new offset.',
        extraHeaders: { 'Tus-Resumable': tusResumable, 'Upload-Offset': offset, 'Upload-Expires': expires },
      },
      404: notFound,
      409: tusProblem(['upload_offset_mismatch']),
      410: tusProblem(['upload_expired']),
      412: versionRefused,
      413: tusProblem(['payload_too_large']),
      415: tusProblem(['unsupported_media_type']),
      460: tusProblem(['checksum_mismatch']),
    } satisfies Responses,
  },
  remove: {
    operationId: 'deleteUpload',
    tags,
    summary: 'Delete an upload (tus termination)',
    description: 'Deletes the upload and its bytes; from then on it is 404.',
    params: uploadParams,
    docHeaders: pick('Tus-Resumable'),
    responses: { 204: noContent('Deleted.'), 404: notFound, 412: versionRefused },
  },
  options: {
    operationId: 'describeUploads',
    tags,
    summary: 'The tus server’s capabilities',
    description: 'tus discovery: versions, extensions, checksum algorithms and the largest size.',
    responses: {
      204: {
        description: 'The capabilities.',
        extraHeaders: {
          'Tus-Resumable': tusResumable,
          'Tus-Version': header('`1.0.0`.', { type: 'string' }, true),
          'Tus-Extension': header('The extensions, comma-separated.', { type: 'string' }, true),
          'Tus-Checksum-Algorithm': header('`sha256`.', { type: 'string' }, true),
        },
      },
    } satisfies Responses,
  },
};

function pick(...names: (keyof typeof requestHeaders)[]) {
  return Object.fromEntries(names.map((name) => [name, requestHeaders[name]]));
}
