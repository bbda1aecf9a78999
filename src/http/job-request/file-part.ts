// A `file` part of a job or batch request (docs/api.md §2): streamed through its guard straight into
// the blob store, the next part read while its last bytes are still being written.
import type { MultipartFile } from '@fastify/multipart';
import { jobFolder } from '../../blobs/keys.js';
import type { BlobStore } from '../../blobs/types.js';
import { QuireError } from '../../errors/quire-error.js';
import type { InputFile } from '../../model/job.js';
import type { CatalogEntry } from '../../tools/framework/catalog.js';
import { FileGuard } from './file-guard.js';
import type { RequestLimits } from './limits.js';
import { cleanFileName, type InputsSoFar } from './received.js';
import { tooManyFiles, unsupportedContent } from './refusals.js';

/** `entry`: the spec's tool if known yet, whose file count and types are checked as the file comes. */
export async function storeFile(
  part: MultipartFile,
  entry: CatalogEntry | undefined,
  state: InputsSoFar,
  jobId: string,
  blobs: BlobStore,
  limits: RequestLimits,
): Promise<void> {
  if (part.fieldname !== 'file') {
    throw new QuireError('invalid_request', `Unknown file part "${part.fieldname}"; send files as "file".`, {
      errors: [{ field: part.fieldname, detail: 'is not a known part' }],
    });
  }
  const maxFiles = Math.min(limits.maxFiles, maxFilesOf(entry, limits));
  if (state.inputs.length >= maxFiles) {
    throw tooManyFiles(maxFiles, limits.plan, { Connection: 'close' });
  }
  if (state.failure !== undefined) throw state.failure;
  const index = state.inputs.length;
  const blobKey = `${jobFolder(jobId)}/input-${index}`;
  const guard = new FileGuard(state, limits, entry?.tool.inputs.accepts, index);
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
  if (guard.contentType === undefined) throw unsupportedContent(entry?.tool.inputs.accepts, index);
  input.size = guard.size;
  input.contentType = guard.contentType;
}

/** The tool's own file limit when it declares one and is known yet, else the plan's. */
export function maxFilesOf(entry: CatalogEntry | undefined, limits: RequestLimits): number {
  const declared = entry?.tool.inputs.maxFiles;
  return typeof declared === 'number' ? declared : limits.maxFiles;
}
