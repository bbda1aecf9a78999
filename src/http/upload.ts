// Receives POST /jobs multipart bodies: text fields checked as they arrive, files sniffed and
// streamed straight into the blob store under per-file and total limits (docs/api.md §2).
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { jobFolder } from '../blobs/keys.js';
import type { BlobStore } from '../blobs/types.js';
import { QuireError } from '../errors/quire-error.js';
import type { InputFile, JobRecipe, JobStep } from '../model/job.js';
import type { CatalogEntry, ToolCatalog } from '../tools/framework/catalog.js';
import { type ChainLimits, checkLeastOutput } from '../tools/framework/least-output.js';
import type { UploadTake } from '../uploads/uploads.js';
import {
  conflictingForm,
  conflictsWithRecipe,
  RECIPE_PART,
  type RecipeSource,
  readRecipePart,
} from './recipe-part.js';
import { readStepsPart, underStep } from './steps-field.js';
import {
  boundedObject,
  cleanFileName,
  type FieldValue,
  fieldValue,
  fileText,
  parseMetadata,
  partText,
  TEXT_PARTS,
  toolName,
  tooManyFiles,
  unsupportedContent,
} from './upload-fields.js';
import { UploadGuard, type UploadLimits } from './upload-guard.js';
import { takeUploadPart, UPLOAD_ID_PART, type UploadSource } from './upload-ids.js';
import {
  type ReceivedTransfers,
  readTransferPart,
  TRANSFER_PARTS,
  TransferParts,
} from './upload-transfers.js';

export interface ReceivedJob {
  entry: CatalogEntry;
  options: Record<string, unknown>;
  metadata: Record<string, string>;
  inputs: InputFile[];
  /**
   * SHA-256 (hex) of each input, in order, computed while storing (the Idempotency-Key fingerprint);
   * empty strings for uploaded files when the request has no key, as nothing compares them then.
   */
  sha256: string[];
  /** With a `steps` part: the steps after the first (`entry`, `options`). */
  nextSteps?: JobStep[];
  /** With a `recipe` part: the version it named, and the part as sent (for the fingerprint). */
  recipe?: JobRecipe;
  recipeRef?: string;
  transfers: ReceivedTransfers;
  /** `upload_id` parts: taken only when the job is stored (upload-ids.ts). */
  uploadTakes: UploadTake[];
  /** Digest of the transfer parts, for the Idempotency-Key fingerprint. */
  transfersFingerprint: string;
}

export class UploadState {
  entry: CatalogEntry | undefined;
  rawOptions: unknown;
  options: Record<string, unknown> | undefined;
  metadata: Record<string, string> = {};
  readonly inputs: InputFile[] = [];
  readonly sha256: string[] = [];
  totalBytes = 0;
  readonly uploadTakes: UploadTake[] = [];
  readonly seen = new Set<string>();
  nextSteps: JobStep[] | undefined;
  recipe: JobRecipe | undefined;
  recipeRef: string | undefined;
  readonly transfers = new TransferParts();
  /**
   * Files whose bytes are all read but whose last write, close and rename may still be in flight:
   * the next part is read meanwhile, and `stored()` waits for them before the job can exist.
   */
  storing: Promise<void>[] = [];
  /** The first of those that failed, so the next file is refused at once instead of at the end. */
  failure: unknown;

  /** `hashFiles`: compute each file's SHA-256, which only an Idempotency-Key's fingerprint uses. */
  constructor(readonly hashFiles = true) {}

  /** Every file of this request stored; rejects with the first failure. */
  async stored(): Promise<void> {
    await Promise.all(this.storing);
  }

  /** Every store settled, failed or not: before a failed request's files are deleted. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.storing);
  }
}

export async function receiveJobUpload(
  request: FastifyRequest,
  jobId: string,
  catalog: ToolCatalog,
  blobs: BlobStore,
  limits: UploadLimits,
  uploads?: UploadSource,
  recipes?: RecipeSource,
): Promise<ReceivedJob> {
  // Without an Idempotency-Key no fingerprint is compared, so the files need no SHA-256.
  const state = new UploadState(request.idempotency !== undefined);
  try {
    for await (const part of request.parts()) {
      const value = part.type === 'field' ? fieldValue(part) : undefined;
      if (TRANSFER_PARTS.includes(part.fieldname)) {
        const text = partText(part.fieldname, value ?? (await fileText(part as MultipartFile)));
        const maxFiles = Math.min(limits.maxFiles, maxFilesOf(state.entry, limits));
        await readTransferPart(part.fieldname, text, state, jobFolder(jobId), { ...limits, maxFiles });
      } else if (part.fieldname === UPLOAD_ID_PART && uploads) {
        const text = partText(part.fieldname, value ?? (await fileText(part as MultipartFile)));
        const maxFiles = Math.min(limits.maxFiles, maxFilesOf(state.entry, limits));
        await takeUploadPart(text, state, jobId, { ...limits, maxFiles }, uploads);
      } else if (part.fieldname === RECIPE_PART && recipes) {
        const text = partText(part.fieldname, value ?? (await fileText(part as MultipartFile)));
        await readRecipePart(text, state, catalog, recipes);
      } else if (value) readField(part.fieldname, value, state, catalog);
      // Clients that send JSON as a Blob (FormData) produce a file part; read it as the text it is.
      else if (TEXT_PARTS.includes(part.fieldname))
        readField(part.fieldname, await fileText(part as MultipartFile), state, catalog);
      else await storeFile(part as MultipartFile, state, jobId, blobs, limits);
    }
    await state.stored();
    return finish(state, catalog, { maxPages: limits.maxPages, maxFanOut: limits.job.maxFanOut });
  } catch (error) {
    // A rename that landed after the delete would leave its file behind.
    await state.settled();
    await Promise.allSettled(state.inputs.map((f) => blobs.delete(f.blobKey)));
    throw error;
  }
}

export function readField(name: string, value: FieldValue, state: UploadState, catalog: ToolCatalog): void {
  if (!TEXT_PARTS.includes(name)) {
    throw new QuireError(
      'invalid_request',
      `Unknown form field "${name}"; expected tool, options (or steps), metadata and file parts.`,
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
  if (conflictsWithRecipe(name, state.seen)) throw conflictingForm(name);
  state.seen.add(name);
  if (name === 'steps' || (state.seen.has('steps') && (name === 'tool' || name === 'options'))) {
    readStepsPart(name, value, state, catalog);
    return;
  }
  if (name === 'tool') {
    const entry = catalog.get(toolName(value));
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
    state.rawOptions = boundedObject(value, 'options', 'invalid_options');
  } else {
    state.metadata = parseMetadata(value);
  }
  // Validate options as soon as both are known, so bad options are refused before any file is stored.
  if (state.entry && state.seen.has('options') && state.options === undefined) {
    state.options = checkOptions(state, catalog);
  }
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
    throw tooManyFiles(maxFiles, limits.plan, { Connection: 'close' });
  }
  if (state.failure !== undefined) throw state.failure;
  const index = state.inputs.length;
  const blobKey = `${jobFolder(jobId)}/input-${index}`;
  const guard = new UploadGuard(state, limits, state.entry?.tool.inputs.accepts, index);
  const input: InputFile = { name: cleanFileName(part.filename, index), size: 0, contentType: '', blobKey };
  state.inputs.push(input); // registered first so a failed upload's partial object is cleaned up
  state.sha256.push(''); // this file's place in the fingerprint, filled in once it is hashed
  const body = guard.pass(part.file);
  const stored = blobs.put(blobKey, body, { sha256: state.hashFiles }).then(({ sha256 }) => {
    if (sha256 !== undefined) state.sha256[index] = sha256;
  });
  stored.catch((error: unknown) => {
    state.failure ??= error;
  });
  state.storing.push(stored);
  // Once every byte is read, the part's own checks run and the next part may start. A file cut
  // short never passes; its put fails with the error to report (the client's, the guard's, the disk's).
  await Promise.race([stored, guard.passed]);
  // A stream ended by the parser's own limit must not become a silently truncated input.
  if (part.file.truncated) throw guard.fileTooLarge();
  if (guard.contentType === undefined) throw unsupported(state.entry, index);
  input.size = guard.size;
  input.contentType = guard.contentType;
}

export function finish(state: UploadState, catalog: ToolCatalog, plan: ChainLimits): ReceivedJob {
  const entry = state.entry;
  if (!entry)
    throw new QuireError('invalid_request', 'The "tool" part (or "steps", or "recipe") is required.', {
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
  const ownErrors = entry.tool.checkRequest?.(options, state.inputs.length) ?? [];
  const crossErrors = state.nextSteps ? underStep(ownErrors, 0) : ownErrors;
  if (crossErrors.length > 0) {
    throw new QuireError('invalid_options', `The options are not valid for "${entry.tool.name}".`, {
      errors: crossErrors,
    });
  }
  for (const [index, input] of state.inputs.entries()) {
    // An imported input's type is known only once the worker has fetched and sniffed it.
    if (input.source !== 'url' && !entry.tool.inputs.accepts.includes(input.contentType as never))
      throw unsupported(entry, index);
  }
  const chain = [{ tool: entry.tool, options }, ...(state.nextSteps ?? []).map((s) => stepOf(catalog, s))];
  checkLeastOutput(chain, plan);
  const { metadata, inputs, sha256, nextSteps, recipe, recipeRef, uploadTakes } = state;
  return {
    entry,
    options,
    metadata,
    inputs,
    sha256,
    ...(nextSteps ? { nextSteps } : {}),
    ...(recipe && recipeRef !== undefined ? { recipe, recipeRef } : {}),
    transfers: state.transfers.result(),
    uploadTakes,
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

/** A later step as its tool: the steps part was checked against the catalogue when it was read. */
function stepOf(catalog: ToolCatalog, step: JobStep) {
  const entry = catalog.get(step.tool);
  if (!entry) throw new QuireError('unknown_tool', `No tool is named "${step.tool}".`);
  return { tool: entry.tool, options: step.options };
}

function maxFilesOf(entry: CatalogEntry | undefined, limits: UploadLimits): number {
  const declared = entry?.tool.inputs.maxFiles;
  return typeof declared === 'number' ? declared : limits.maxFiles;
}

function unsupported(entry: CatalogEntry | undefined, index: number): QuireError {
  return unsupportedContent(entry?.tool.inputs.accepts, index);
}
