// `upload_id` parts of a job request (docs/api.md "Resumable uploads"): a finished resumable upload
// taken as the next input in place of a `file` part — moved into the job's folder, never copied
// through this process, then sniffed and counted against the limits like any uploaded file.
import { jobFolder } from '../blobs/keys.js';
import type { BlobStore } from '../blobs/types.js';
import { QuireError } from '../errors/quire-error.js';
import type { InputFile } from '../model/job.js';
import type { CatalogEntry } from '../tools/lib/catalog.js';
import { SNIFF_BYTES, sniffContentType } from '../tools/lib/sniff.js';
import { isUploadId } from '../uploads/tus-server.js';
import type { Uploads } from '../uploads/uploads.js';
import { cleanFileName, tooManyFiles, unsupportedContent } from './upload-fields.js';
import type { UploadLimits } from './upload-guard.js';

export const UPLOAD_ID_PART = 'upload_id';

/** The part of a request's upload state an `upload_id` adds to. */
interface InputsSoFar {
  entry: CatalogEntry | undefined;
  readonly inputs: InputFile[];
  readonly sha256: string[];
  totalBytes: number;
}

export interface UploadSource {
  uploads: Uploads;
  accountId: string;
  /**
   * The request's Idempotency-Key already finished: its stored answer is replayed (or the key
   * refused) by the fingerprint alone, and the upload it consumed the first time is not looked for.
   */
  replaying?: boolean;
}

export async function takeUploadPart(
  text: string,
  state: InputsSoFar,
  jobId: string,
  blobs: BlobStore,
  limits: UploadLimits & { maxFiles: number },
  source: UploadSource,
): Promise<void> {
  const uploadId = text.trim();
  if (!isUploadId(uploadId))
    throw new QuireError('invalid_request', 'An "upload_id" part must be an upload id (upl_…).', {
      errors: [{ field: UPLOAD_ID_PART, detail: 'is not an upload id' }],
    });
  if (state.inputs.length >= limits.maxFiles) throw tooManyFiles(limits.maxFiles, limits.plan);
  const blobKey = `${jobFolder(jobId)}/input-${state.inputs.length}`;
  if (source.replaying) {
    // Stands in for the consumed upload until the fingerprint decides; nothing is stored under it.
    const contentType = state.entry?.tool.inputs.accepts[0] ?? 'application/pdf';
    state.inputs.push({ name: uploadId, size: 0, contentType, blobKey });
    state.sha256.push(`upload:${uploadId}`);
    return;
  }
  const remaining = limits.maxTotalBytes - state.totalBytes;
  const maxBytes = Math.min(limits.maxFileBytes, remaining);
  const taken = await source.uploads.take(source.accountId, uploadId, blobKey, maxBytes);
  // Registered at once so that a refusal below deletes the moved bytes with the request's others.
  const index = state.inputs.length;
  const name = cleanFileName(taken.filename, index);
  const input = { name, size: taken.length, contentType: '', blobKey };
  state.inputs.push(input);
  state.totalBytes += taken.length;
  input.contentType = await sniffStored(
    blobs,
    blobKey,
    taken.length,
    state.entry?.tool.inputs.accepts,
    index,
  );
  // Stands in for the SHA-256 in the Idempotency-Key fingerprint: an upload is used once, so its id
  // names its bytes as surely, without reading gigabytes again.
  state.sha256.push(`upload:${uploadId}`);
}

async function sniffStored(
  blobs: BlobStore,
  key: string,
  size: number,
  accepts: readonly string[] | undefined,
  index: number,
): Promise<string> {
  const head: Buffer[] = [];
  if (size > 0) {
    const stream = await blobs.get(key, { start: 0, end: Math.min(size, SNIFF_BYTES) - 1 });
    for await (const chunk of stream) head.push(chunk as Buffer);
  }
  const type = sniffContentType(Buffer.concat(head));
  if (type === undefined || (accepts !== undefined && !accepts.includes(type)))
    throw unsupportedContent(accepts, index);
  return type;
}
