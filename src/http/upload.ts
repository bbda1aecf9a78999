// Receives POST /jobs multipart bodies: text fields checked as they arrive, files sniffed and
// streamed straight into the blob store under per-file and total limits (docs/api.md §2).
import { pipeline } from 'node:stream';
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { jobFolder } from '../blobs/keys.js';
import type { BlobStore } from '../blobs/types.js';
import { QuireError } from '../errors/quire-error.js';
import type { InputFile } from '../model/job.js';
import type { CatalogEntry, ToolCatalog } from '../tools/lib/catalog.js';
import { UploadGuard } from './upload-guard.js';
import {
  type ReceivedTransfers,
  readTransferPart,
  TRANSFER_PARTS,
  TransferParts,
} from './upload-transfers.js';

/** The caller's plan limits, already capped by the server-wide settings. */
export interface UploadLimits {
  maxFileBytes: number;
  maxTotalBytes: number;
  maxFiles: number;
  /** Named in the 413 so the client knows which limit it hit (docs/api.md §5). */
  plan: string;
  /** QUIRE_WEBHOOKS_ALLOW_PRIVATE, for a `webhook_url` part. */
  allowPrivateWebhooks?: boolean;
}

export interface ReceivedJob {
  entry: CatalogEntry;
  options: Record<string, unknown>;
  metadata: Record<string, string>;
  inputs: InputFile[];
  /** SHA-256 (hex) of each input, in order, computed while storing (the Idempotency-Key fingerprint). */
  sha256: string[];
  transfers: ReceivedTransfers;
  /** Digest of the transfer parts, for the Idempotency-Key fingerprint. */
  transfersFingerprint: string;
}

const METADATA_MAX_PAIRS = 16;
const METADATA_MAX_KEY = 40;
const METADATA_MAX_VALUE = 500;

export class UploadState {
  entry: CatalogEntry | undefined;
  rawOptions: unknown;
  options: Record<string, unknown> | undefined;
  metadata: Record<string, string> = {};
  readonly inputs: InputFile[] = [];
  readonly sha256: string[] = [];
  totalBytes = 0;
  readonly seen = new Set<string>();
  readonly transfers = new TransferParts();
}

export async function receiveJobUpload(
  request: FastifyRequest,
  jobId: string,
  catalog: ToolCatalog,
  blobs: BlobStore,
  limits: UploadLimits,
): Promise<ReceivedJob> {
  const state = new UploadState();
  try {
    for await (const part of request.parts()) {
      if (TRANSFER_PARTS.includes(part.fieldname)) {
        const text = part.type === 'field' ? fieldText(part) : await fileText(part);
        const maxFiles = Math.min(limits.maxFiles, maxFilesOf(state.entry, limits));
        await readTransferPart(part.fieldname, text, state, jobFolder(jobId), { ...limits, maxFiles });
      } else if (part.type === 'field') readField(part.fieldname, fieldText(part), state, catalog);
      // Clients that send JSON as a Blob (FormData) produce a file part; read it as the text it is.
      else if (TEXT_PARTS.includes(part.fieldname))
        readField(part.fieldname, await fileText(part), state, catalog);
      else await storeFile(part, state, jobId, blobs, limits);
    }
    return finish(state, catalog);
  } catch (error) {
    await Promise.allSettled(state.inputs.map((f) => blobs.delete(f.blobKey)));
    throw error;
  }
}

export const TEXT_PARTS = ['tool', 'options', 'metadata'];
/** The multipart plugin's own cap on a text field, applied too when a text part comes as a file. */
const TEXT_PART_MAX_BYTES = 64 * 1024;

export function readField(name: string, value: string, state: UploadState, catalog: ToolCatalog): void {
  if (!TEXT_PARTS.includes(name)) {
    throw new QuireError(
      'invalid_request',
      `Unknown form field "${name}"; expected tool, options, metadata and file parts.`,
      {
        errors: [{ field: name, detail: 'is not a known part' }],
      },
    );
  }
  if (state.seen.has(name)) {
    throw new QuireError('invalid_request', `The "${name}" part appears twice.`, {
      errors: [{ field: name, detail: 'appears twice' }],
    });
  }
  state.seen.add(name);
  if (name === 'tool') {
    const entry = catalog.get(value);
    if (!entry)
      throw new QuireError('unknown_tool', 'No tool has this name; GET /api/v1/tools lists them.', {
        errors: [{ field: 'tool', detail: 'is not a known tool' }],
      });
    if (!entry.available)
      throw new QuireError(
        'tool_unavailable',
        `This tool is not available: ${entry.reason ?? 'engine missing'}.`,
      );
    state.entry = entry;
  } else if (name === 'options') {
    state.rawOptions = parseJsonObject(value, 'options');
  } else {
    state.metadata = parseMetadata(value);
  }
  // Validate options as soon as both are known, so bad options are refused before any file is stored.
  if (state.entry && state.seen.has('options') && state.options === undefined) {
    state.options = checkOptions(state, catalog);
  }
}

/** A part sent as application/json arrives already parsed by the multipart plugin. */
export function fieldText(part: MultipartValue): string {
  return typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
}

export async function fileText(part: MultipartFile): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of part.file as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > TEXT_PART_MAX_BYTES) {
      throw new QuireError(
        'invalid_request',
        `The "${part.fieldname}" part is larger than ${TEXT_PART_MAX_BYTES} bytes.`,
        {
          errors: [{ field: part.fieldname, detail: 'is too large' }],
        },
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function storeFile(
  part: MultipartFile,
  state: UploadState,
  jobId: string,
  blobs: BlobStore,
  limits: UploadLimits,
): Promise<void> {
  if (part.fieldname !== 'file') {
    throw new QuireError('invalid_request', `Unknown file part "${part.fieldname}"; send files as "file".`, {
      errors: [{ field: part.fieldname, detail: 'is not a known part' }],
    });
  }
  const maxFiles = Math.min(limits.maxFiles, maxFilesOf(state.entry, limits));
  if (state.inputs.length >= maxFiles) {
    throw new QuireError('too_many_files', `At most ${maxFiles} file(s) per job for this tool and plan.`, {
      extras: { max_files: maxFiles, plan: limits.plan },
      headers: { Connection: 'close' },
    });
  }
  const index = state.inputs.length;
  const blobKey = `${jobFolder(jobId)}/input-${index}`;
  const guard = new UploadGuard(state, limits, state.entry?.tool.inputs.accepts);
  const input: InputFile = { name: cleanFileName(part.filename, index), size: 0, contentType: '', blobKey };
  state.inputs.push(input); // registered first so a failed upload's partial object is cleaned up
  // pipeline (not pipe) so a guard error also destroys the source and reaches the store's reader.
  const { size, sha256 } = await blobs.put(
    blobKey,
    pipeline(part.file, guard, () => undefined),
  );
  // A stream ended by the parser's own limit must not become a silently truncated input.
  if (part.file.truncated) throw guard.fileTooLarge();
  if (guard.contentType === undefined) throw unsupported(state.entry);
  input.size = size;
  input.contentType = guard.contentType;
  state.sha256.push(sha256);
}

export function finish(state: UploadState, catalog: ToolCatalog): ReceivedJob {
  const entry = state.entry;
  if (!entry)
    throw new QuireError('invalid_request', 'The "tool" part is required.', {
      errors: [{ field: 'tool', detail: 'is required' }],
    });
  const options = state.options ?? checkOptions(state, catalog);
  const min = entry.tool.inputs.minFiles;
  if (state.inputs.length < min) {
    throw new QuireError('missing_file', `This tool needs at least ${min} file(s) as "file" parts.`, {
      extras: { min_files: min },
    });
  }
  // Files sent before the tool field were stored without knowing the tool's count and types.
  const declaredMax = entry.tool.inputs.maxFiles;
  if (typeof declaredMax === 'number' && state.inputs.length > declaredMax) {
    throw new QuireError('too_many_files', `At most ${declaredMax} file(s) per job for this tool.`, {
      extras: { max_files: declaredMax },
    });
  }
  const crossErrors = entry.tool.checkRequest?.(options, state.inputs.length) ?? [];
  if (crossErrors.length > 0) {
    throw new QuireError('invalid_options', `The options are not valid for "${entry.tool.name}".`, {
      errors: crossErrors,
    });
  }
  for (const input of state.inputs) {
    // A URL input's type is known once the worker has fetched it, and is checked then.
    if (input.source !== 'url' && !entry.tool.inputs.accepts.includes(input.contentType as never))
      throw unsupported(entry);
  }
  return {
    entry,
    options,
    metadata: state.metadata,
    inputs: state.inputs,
    sha256: state.sha256,
    transfers: state.transfers.result(),
    transfersFingerprint: state.transfers.fingerprint(),
  };
}

function checkOptions(state: UploadState, catalog: ToolCatalog): Record<string, unknown> {
  const entry = state.entry!;
  const result = catalog.checkOptions(entry.tool.name, state.rawOptions ?? {});
  if (!result.ok)
    throw new QuireError('invalid_options', `The options are not valid for "${entry.tool.name}".`, {
      errors: result.errors,
    });
  return result.options;
}

function maxFilesOf(entry: CatalogEntry | undefined, limits: UploadLimits): number {
  const declared = entry?.tool.inputs.maxFiles;
  return typeof declared === 'number' ? declared : limits.maxFiles;
}

function unsupported(entry: CatalogEntry | undefined): QuireError {
  const accepts = entry?.tool.inputs.accepts.join(', ') ?? 'the tool’s types';
  return new QuireError('unsupported_file', `The file content is not of an accepted type (${accepts}).`, {
    extras: { accepts: entry?.tool.inputs.accepts },
  });
}

function parseJsonObject(value: string, field: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new QuireError('invalid_request', `The "${field}" part is not valid JSON.`, {
      errors: [{ field, detail: 'is not valid JSON' }],
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new QuireError('invalid_request', `The "${field}" part must be a JSON object.`, {
      errors: [{ field, detail: 'must be a JSON object' }],
    });
  }
  return parsed as Record<string, unknown>;
}

function parseMetadata(value: string): Record<string, string> {
  const parsed = parseJsonObject(value, 'metadata');
  const errors = Object.entries(parsed).flatMap(([key, v]) => {
    const pointer = `/metadata/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (typeof v !== 'string') return [{ pointer, detail: 'must be a string' }];
    if (key.length === 0 || key.length > METADATA_MAX_KEY)
      return [{ pointer, detail: `key must be 1–${METADATA_MAX_KEY} characters` }];
    if (v.length > METADATA_MAX_VALUE)
      return [{ pointer, detail: `must be at most ${METADATA_MAX_VALUE} characters` }];
    return [];
  });
  if (Object.keys(parsed).length > METADATA_MAX_PAIRS)
    errors.push({ pointer: '/metadata', detail: `at most ${METADATA_MAX_PAIRS} pairs` });
  if (errors.length > 0) throw new QuireError('invalid_metadata', 'The metadata is not valid.', { errors });
  return parsed as Record<string, string>;
}

/** A display name only: path parts and control characters removed, length capped. */
function cleanFileName(given: string | undefined, index: number): string {
  const base = (given ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 200);
  return clean === '' ? `file-${index + 1}` : clean;
}
