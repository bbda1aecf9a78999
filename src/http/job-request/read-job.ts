// Reads a POST /jobs multipart body (docs/api.md §2) into the spec and the inputs of one job: text
// parts checked as they arrive, files sniffed and streamed straight into the blob store under
// per-file and total limits. Each part goes to its reader; none of them calls back into this file.
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { jobFolder } from '../../blobs/keys.js';
import type { BlobStore } from '../../blobs/types.js';
import type { ToolCatalog } from '../../tools/framework/catalog.js';
import { maxFilesOf, storeFile } from './file-part.js';
import { finish } from './finish.js';
import type { RequestLimits } from './limits.js';
import { InputsSoFar, type ReceivedJob, SpecSoFar } from './received.js';
import { RECIPE_PART, type RecipeSource, readRecipePart } from './recipe-part.js';
import { readSpecPart } from './spec-parts.js';
import { fieldValue, fileText, partText, TEXT_PARTS } from './text-parts.js';
import { readTransferPart, TRANSFER_PARTS } from './transfer-parts.js';
import { takeUploadPart, UPLOAD_ID_PART, type UploadSource } from './upload-id-part.js';

export async function readJobRequest(
  request: FastifyRequest,
  jobId: string,
  catalog: ToolCatalog,
  blobs: BlobStore,
  limits: RequestLimits,
  uploads?: UploadSource,
  recipes?: RecipeSource,
): Promise<ReceivedJob> {
  const spec = new SpecSoFar();
  // Without an Idempotency-Key no fingerprint is compared, so the files need no SHA-256.
  const received = new InputsSoFar(request.idempotency !== undefined);
  try {
    for await (const part of request.parts()) {
      const value = part.type === 'field' ? fieldValue(part) : undefined;
      if (TRANSFER_PARTS.includes(part.fieldname)) {
        const text = partText(part.fieldname, value ?? (await fileText(part as MultipartFile)));
        const maxFiles = Math.min(limits.maxFiles, maxFilesOf(spec.entry, limits));
        await readTransferPart(part.fieldname, text, spec, received, jobFolder(jobId), {
          ...limits,
          maxFiles,
        });
      } else if (part.fieldname === UPLOAD_ID_PART && uploads) {
        const text = partText(part.fieldname, value ?? (await fileText(part as MultipartFile)));
        const maxFiles = Math.min(limits.maxFiles, maxFilesOf(spec.entry, limits));
        await takeUploadPart(text, spec.entry, received, jobId, { ...limits, maxFiles }, uploads);
      } else if (part.fieldname === RECIPE_PART && recipes) {
        const text = partText(part.fieldname, value ?? (await fileText(part as MultipartFile)));
        await readRecipePart(text, spec, catalog, recipes);
      } else if (value) readSpecPart(part.fieldname, value, spec, catalog);
      // Clients that send JSON as a Blob (FormData) produce a file part; read it as the text it is.
      else if (TEXT_PARTS.includes(part.fieldname))
        readSpecPart(part.fieldname, await fileText(part as MultipartFile), spec, catalog);
      else await storeFile(part as MultipartFile, spec.entry, received, jobId, blobs, limits);
    }
    await received.stored();
    return finish(spec, received, catalog, { maxPages: limits.maxPages, maxFanOut: limits.job.maxFanOut });
  } catch (error) {
    // A rename that landed after the delete would leave its file behind.
    await received.settled();
    await Promise.allSettled(received.inputs.map((f) => blobs.delete(f.blobKey)));
    throw error;
  }
}
