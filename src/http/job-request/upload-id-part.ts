// `upload_id` parts of a job request (docs/api.md "Resumable uploads"): a finished resumable upload
// as the next input in place of a `file` part — sniffed and counted against the limits like any
// uploaded file while the request is read, and taken (moved into the job's folder, never copied
// through this process) by JobService only once the job is about to be stored, so a refused request
// leaves it.
import { jobFolder } from '../../blobs/keys.js';
import { QuireError } from '../../errors/quire-error.js';
import { SNIFF_BYTES, sniffContentType } from '../../sniff/sniff.js';
import type { CatalogEntry } from '../../tools/framework/catalog.js';
import { isUploadId } from '../../uploads/tus-server.js';
import type { Uploads } from '../../uploads/uploads.js';
import type { RequestLimits } from './limits.js';
import { cleanFileName, type InputsSoFar } from './received.js';
import { tooManyFiles, unsupportedContent } from './refusals.js';

export const UPLOAD_ID_PART = 'upload_id';

export interface UploadSource {
  uploads: Uploads;
  accountId: string;
  /**
   * The request's Idempotency-Key already finished: its stored answer is replayed (or the key
   * refused) by the fingerprint alone, and the upload it consumed the first time is not looked for.
   */
  replaying?: boolean;
}

/** Checks the upload an `upload_id` part names and adds it as the job's next input. */
export async function takeUploadPart(
  text: string,
  entry: CatalogEntry | undefined,
  state: InputsSoFar,
  jobId: string,
  limits: RequestLimits,
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
    const contentType = entry?.tool.inputs.accepts[0] ?? 'application/pdf';
    state.inputs.push({ name: uploadId, size: 0, contentType, blobKey });
    state.sha256.push(`upload:${uploadId}`);
    return;
  }
  const remaining = limits.maxTotalBytes - state.totalBytes;
  const maxBytes = Math.min(limits.maxFileBytes, remaining);
  if (state.uploadTakes.some((t) => t.uploadId === uploadId))
    throw new QuireError('invalid_request', `The upload ${uploadId} is named twice.`, {
      errors: [{ field: UPLOAD_ID_PART, detail: 'names an upload already named' }],
    });
  const upload = await source.uploads.check(source.accountId, uploadId, maxBytes, SNIFF_BYTES);
  const index = state.inputs.length;
  const accepts = entry?.tool.inputs.accepts;
  const contentType = sniffContentType(upload.head);
  if (contentType === undefined || (accepts !== undefined && !accepts.includes(contentType)))
    throw unsupportedContent(accepts, index);
  state.inputs.push({
    name: cleanFileName(upload.filename, index),
    size: upload.length,
    contentType,
    blobKey,
  });
  state.uploadTakes.push({ uploadId, blobKey });
  state.totalBytes += upload.length;
  // Stands in for the SHA-256 in the Idempotency-Key fingerprint: an upload is used once, so its id
  // names its bytes as surely, without reading gigabytes again.
  state.sha256.push(`upload:${uploadId}`);
}
