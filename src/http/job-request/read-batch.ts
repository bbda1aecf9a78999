// Reads a POST /batches multipart body (docs/api.md §11): one spec from the text parts a job request
// takes, applied to every item, and each `file`, `file_url` or `upload_id` part becoming its own job's
// inputs. Parts go to the job request's own readers, so whatever a job request accepts, a batch accepts.
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { monotonicFactory } from 'ulid';
import { jobFolder } from '../../blobs/keys.js';
import type { BlobStore } from '../../blobs/types.js';
import { QuireError } from '../../errors/quire-error.js';
import type { ToolCatalog } from '../../tools/framework/catalog.js';
import { storeFile } from './file-part.js';
import { finish } from './finish.js';
import { type BatchLimits, batchParserLimits } from './limits.js';
import { InputsSoFar, type ReceivedJob, SpecSoFar } from './received.js';
import { RECIPE_PART, type RecipeSource, readRecipePart } from './recipe-part.js';
import { readSpecPart } from './spec-parts.js';
import { partText, partValue, TEXT_PARTS } from './text-parts.js';
import { readTransferPart } from './transfer-parts.js';
import { takeUploadPart, UPLOAD_ID_PART, type UploadSource } from './upload-id-part.js';

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
  received: InputsSoFar;
}

/** The parts that each make one job of the batch. */
const ITEM_PARTS = ['file', 'file_url', UPLOAD_ID_PART];

/** Each item is one job with one file: `file`, `file_url` and `upload_id` parts count against `maxJobs`. */
export async function readBatchRequest(
  request: FastifyRequest,
  catalog: ToolCatalog,
  blobs: BlobStore,
  limits: BatchLimits,
  recipes?: RecipeSource,
  uploads?: UploadSource,
): Promise<BatchItem[]> {
  // One spec for every job of the batch, whatever the order of its parts and the items.
  const spec = new SpecSoFar();
  // Without an Idempotency-Key no fingerprint is compared, so the files need no SHA-256.
  const hashFiles = request.idempotency !== undefined;
  const items: PendingItem[] = [];
  let batchBytes = 0;
  try {
    for await (const part of request.parts({ limits: batchParserLimits(limits) })) {
      if (ITEM_PARTS.includes(part.fieldname) && (part.fieldname !== UPLOAD_ID_PART || uploads)) {
        const item = await readItem(part, spec, items, { blobs, limits, uploads, hashFiles });
        batchBytes += item.received.inputs[0]?.size ?? 0;
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
        const text = partText('webhook_url', await partValue(part));
        await spec.transfers.read('webhook_url', text, 0, limits.allowPrivateWebhooks ?? false);
      } else if (part.fieldname === RECIPE_PART && recipes) {
        await readRecipePart(partText(RECIPE_PART, await partValue(part)), spec, catalog, recipes);
      } else if (part.type === 'field' || TEXT_PARTS.includes(part.fieldname)) {
        readSpecPart(part.fieldname, await partValue(part), spec, catalog);
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
    return items.map(({ jobId, received }) => ({
      jobId,
      received: finish(spec, received, catalog, {
        maxPages: limits.maxPages,
        maxFanOut: limits.job.maxFanOut,
      }),
    }));
  } catch (error) {
    await Promise.allSettled(items.map((i) => i.received.settled()));
    await Promise.allSettled(items.flatMap((i) => i.received.inputs.map((f) => blobs.delete(f.blobKey))));
    throw error;
  }
}

interface ItemSources {
  blobs: BlobStore;
  limits: BatchLimits;
  uploads: UploadSource | undefined;
  hashFiles: boolean;
}

async function readItem(
  part: MultipartFile | MultipartValue,
  spec: SpecSoFar,
  items: PendingItem[],
  { blobs, limits, uploads, hashFiles }: ItemSources,
): Promise<PendingItem> {
  if (items.length >= limits.maxJobs) {
    throw new QuireError('too_many_files', `At most ${limits.maxJobs} files per batch.`, {
      extras: { max_files: limits.maxJobs },
      headers: { Connection: 'close' },
    });
  }
  const jobId = `job_${jobUlid()}`;
  const received = new InputsSoFar(hashFiles);
  const item = { jobId, received };
  items.push(item); // registered first so that a file refused midway is deleted with the others
  if (part.type === 'file' && part.fieldname === 'file') {
    await storeFile(part, spec.entry, received, jobId, blobs, limits);
    await received.stored();
  } else if (part.fieldname === UPLOAD_ID_PART && uploads) {
    const text = partText(UPLOAD_ID_PART, await partValue(part));
    await takeUploadPart(text, spec.entry, received, jobId, { ...limits, maxFiles: 1 }, uploads);
  } else {
    const text = partText('file_url', await partValue(part));
    await readTransferPart('file_url', text, spec, received, jobFolder(jobId), { ...limits, maxFiles: 1 });
  }
  return item;
}

function batchTooLarge(maxBytes: number): QuireError {
  return new QuireError('payload_too_large', `The batch upload is larger than ${maxBytes} bytes.`, {
    extras: { limit_bytes: maxBytes },
    headers: { Connection: 'close' },
  });
}
