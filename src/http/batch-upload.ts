// Receives POST /batches multipart bodies (docs/api.md §11): the text parts a job request takes,
// applied to every file, and each `file` or `file_url` part becoming its own job. Parts are read by
// the job upload's own functions, so whatever a job request accepts, a batch accepts.
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { monotonicFactory } from 'ulid';
import { jobFolder } from '../blobs/keys.js';
import type { BlobStore } from '../blobs/types.js';
import { QuireError } from '../errors/quire-error.js';
import type { ToolCatalog } from '../tools/framework/catalog.js';
import { RECIPE_PART, type RecipeSource, readRecipePart } from './recipe-part.js';
import { finish, type ReceivedJob, readField, storeFile, UploadState } from './upload.js';
import { type FieldValue, fieldValue, fileText, partText, TEXT_PARTS } from './upload-fields.js';
import type { UploadLimits } from './upload-guard.js';
import { takeUploadPart, UPLOAD_ID_PART, type UploadSource } from './upload-ids.js';
import { readTransferPart } from './upload-transfers.js';

/**
 * Ids that sort in upload order even within one millisecond, so the batch lists its jobs (ordered by
 * creation time, then id) in the order of its parts.
 */
const jobUlid = monotonicFactory();

export interface BatchItem {
  jobId: string;
  received: ReceivedJob;
}

interface PendingItem {
  jobId: string;
  state: UploadState;
}

/** The parts that each make one job of the batch. */
const ITEM_PARTS = ['file', 'file_url', UPLOAD_ID_PART];

/** Each item is one job with one file: `file`, `file_url` and `upload_id` parts count against `maxJobs`. */
export async function receiveBatchUpload(
  request: FastifyRequest,
  catalog: ToolCatalog,
  blobs: BlobStore,
  limits: UploadLimits & { maxJobs: number },
  recipes?: RecipeSource,
  uploads?: UploadSource,
): Promise<BatchItem[]> {
  // Without an Idempotency-Key no fingerprint is compared, so the files need no SHA-256.
  const template = new UploadState(request.idempotency !== undefined);
  const items: PendingItem[] = [];
  let batchBytes = 0;
  try {
    const parts = request.parts({
      // The app's multipart limits count files per job; a batch holds up to maxJobs of them.
      limits: {
        fileSize: limits.maxFileBytes,
        files: limits.maxJobs,
        fields: limits.maxJobs + 20,
        fieldSize: 64 * 1024,
        parts: limits.maxJobs + 20,
        headerPairs: 100,
      },
    });
    for await (const part of parts) {
      if (ITEM_PARTS.includes(part.fieldname) && (part.fieldname !== UPLOAD_ID_PART || uploads)) {
        const item = await receiveItem(part, template, items, { blobs, limits, uploads });
        batchBytes += item.state.inputs[0]?.size ?? 0;
        if (batchBytes > limits.maxTotalBytes) throw batchTooLarge(limits.maxTotalBytes);
      } else if (part.fieldname === 'export') {
        throw new QuireError(
          'invalid_request',
          'A batch takes no "export": a presigned URL names one object.',
          {
            errors: [{ field: 'export', detail: 'is per job; create jobs to export each result' }],
          },
        );
      } else if (part.fieldname === 'webhook_url') {
        await readTransferPart('webhook_url', partText('webhook_url', await partValue(part)), template, '', {
          ...limits,
          maxFiles: 0,
        });
      } else if (part.fieldname === RECIPE_PART && recipes) {
        await readRecipePart(partText(RECIPE_PART, await partValue(part)), template, catalog, recipes);
      } else if (part.type === 'field' || TEXT_PARTS.includes(part.fieldname)) {
        readField(part.fieldname, await partValue(part), template, catalog);
      } else {
        throw new QuireError(
          'invalid_request',
          `Unknown file part "${part.fieldname}"; send files as "file".`,
          {
            errors: [{ field: part.fieldname, detail: 'is not a known part' }],
          },
        );
      }
    }
    if (items.length === 0) {
      throw new QuireError('missing_file', 'A batch needs at least one "file" or "file_url" part.', {
        extras: { min_files: 1 },
      });
    }
    return items.map(({ jobId, state }) => ({
      jobId,
      received: finish(withTextParts(template, state), catalog, {
        maxPages: limits.maxPages,
        maxFanOut: limits.job.maxFanOut,
      }),
    }));
  } catch (error) {
    await Promise.allSettled(items.map((i) => i.state.settled()));
    await Promise.allSettled(items.flatMap((i) => i.state.inputs.map((f) => blobs.delete(f.blobKey))));
    throw error;
  }
}

interface ItemSources {
  blobs: BlobStore;
  limits: UploadLimits & { maxJobs: number };
  uploads: UploadSource | undefined;
}

async function receiveItem(
  part: MultipartFile | MultipartValue,
  template: UploadState,
  items: PendingItem[],
  { blobs, limits, uploads }: ItemSources,
): Promise<PendingItem> {
  if (items.length >= limits.maxJobs) {
    throw new QuireError('too_many_files', `At most ${limits.maxJobs} files per batch.`, {
      extras: { max_files: limits.maxJobs },
      headers: { Connection: 'close' },
    });
  }
  const jobId = `job_${jobUlid()}`;
  const state = withTextParts(template, new UploadState(template.hashFiles));
  const item = { jobId, state };
  items.push(item); // registered first so that a file refused midway is deleted with the others
  if (part.type === 'file' && part.fieldname === 'file') {
    await storeFile(part, state, jobId, blobs, limits);
    await state.stored();
  } else if (part.fieldname === UPLOAD_ID_PART && uploads) {
    const text = partText(UPLOAD_ID_PART, await partValue(part));
    await takeUploadPart(text, state, jobId, { ...limits, maxFiles: 1 }, uploads);
  } else {
    await readTransferPart('file_url', partText('file_url', await partValue(part)), state, jobFolder(jobId), {
      ...limits,
      maxFiles: 1,
    });
  }
  return item;
}

/**
 * The item's own inputs with the batch's text parts as they stand now. Copied field by field from
 * the template, so a text part the job request learns to read is carried without a change here.
 */
function withTextParts(template: UploadState, item: UploadState): UploadState {
  const merged = Object.assign(Object.create(UploadState.prototype) as UploadState, template, {
    inputs: item.inputs,
    sha256: item.sha256,
    totalBytes: item.totalBytes,
    uploadTakes: item.uploadTakes,
    transfers: item.transfers,
    storing: item.storing,
  });
  merged.transfers.webhookUrl = template.transfers.webhookUrl;
  return merged;
}

function partValue(part: MultipartFile | MultipartValue): Promise<FieldValue> | FieldValue {
  return part.type === 'field' ? fieldValue(part) : fileText(part);
}

function batchTooLarge(maxBytes: number): QuireError {
  return new QuireError('payload_too_large', `The batch upload is larger than ${maxBytes} bytes.`, {
    extras: { limit_bytes: maxBytes },
    headers: { Connection: 'close' },
  });
}
