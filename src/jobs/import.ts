// URL imports (docs/api.md §2, `file_url`): before the tool runs, the worker fetches each input given
// as a URL into the blob store, through the SSRF guard, within the plan's per-file size and the
// import time limit, following at most 5 redirects (each judged again), and sniffs its type.
import type { IncomingMessage } from 'node:http';
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import type { BlobStore } from '../blobs/types.js';
import type { Config } from '../config/config.js';
import { QuireError } from '../errors/quire-error.js';
import type { InputFile, TransferTarget } from '../model/job.js';
import { SNIFF_BYTES, sniffContentType } from '../sniff/sniff.js';
import type { ClaimedJob } from '../store/types.js';
import type { JobService } from './job-service.js';
import { LeaseLostError } from './lease-keeper.js';
import { classify, exchange, TransferError, type TransferRequest, transferSignals } from './transfer-http.js';

export interface ImportDeps {
  config: Pick<Config, 'transfers'>;
  /** Records the fetched inputs under the lease (JobService.recordInputs). */
  services: { jobs: Pick<JobService, 'recordInputs'> };
  blobs: BlobStore;
}

/** As browsers and curl's default: enough for real storage links, few enough to bound a loop. */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches the job's URL inputs not fetched yet and records their size and type (a retried job does not
 * fetch again). `maxFileBytes` is the plan's per-file limit, `accepts` the tool's input types. Mutates `claim.job.inputs` for the run that follows.
 */
export async function importInputs(
  claim: ClaimedJob,
  signal: AbortSignal,
  deps: ImportDeps,
  maxFileBytes: number,
  accepts: readonly string[],
): Promise<void> {
  const { job } = claim;
  const pending = job.inputs
    .map((input, index) => ({ input, index }))
    .filter(({ input }) => input.source === 'url' && input.contentType === '');
  if (pending.length === 0) return;
  for (const { input, index } of pending) {
    const source = job.transferSecrets?.imports.find((i) => i.input === index);
    if (!source) throw new QuireError('import_failed', `Input ${index + 1}: its URL is no longer held.`);
    await importOne(input, index, source, signal, deps, maxFileBytes, accepts);
  }
  if (!(await deps.services.jobs.recordInputs(claim, job.inputs)))
    throw signal.reason ?? new LeaseLostError('lease lost while importing');
}

async function importOne(
  input: InputFile,
  index: number,
  source: TransferTarget,
  jobSignal: AbortSignal,
  deps: ImportDeps,
  maxBytes: number,
  accepts: readonly string[],
): Promise<void> {
  const { transfers } = deps.config;
  const signals = transferSignals(jobSignal, transfers.importTimeoutMs, transfers);
  const label = `Input ${index + 1}`;
  try {
    const response = await follow(new URL(source.url), source.headers, signals, deps, label);
    const guard = new ImportGuard(maxBytes, accepts, label);
    const stored = await deps.blobs.put(
      input.blobKey,
      pipeline(response, guard, () => undefined),
    );
    if (!guard.contentType) throw guard.refused();
    input.size = stored.size;
    input.contentType = guard.contentType;
  } catch (error) {
    throw importError(error, label, jobSignal, signals.deadline);
  }
}

/** GETs the URL, following redirects; headers go only to the origin they were given for. */
async function follow(
  start: URL,
  headers: Record<string, string>,
  signals: Pick<TransferRequest, 'signal' | 'deadline' | 'watch'>,
  deps: ImportDeps,
  label: string,
): Promise<IncomingMessage> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const sent = url.origin === start.origin ? headers : {};
    const response = await exchange({
      method: 'GET',
      url,
      headers: sent,
      ...signals,
      allowPrivate: deps.config.transfers.allowPrivate,
    });
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return response;
    response.destroy();
    const location = response.headers.location;
    if (!REDIRECTS.has(status) || location === undefined)
      throw new QuireError('import_failed', `${label}: the server answered ${status}.`);
    if (hop + 1 > MAX_REDIRECTS)
      throw new QuireError('import_failed', `${label}: more than ${MAX_REDIRECTS} redirects.`);
    url = new URL(location, url);
  }
}

function importError(error: unknown, label: string, jobSignal: AbortSignal, deadline: AbortSignal): unknown {
  if (error instanceof QuireError) return error;
  if (jobSignal.aborted) return jobSignal.reason ?? error; // canceled or lease lost: not a job error
  const reason = classify(error, { deadline });
  if (!(reason instanceof TransferError)) return reason;
  switch (reason.reason) {
    case 'forbidden_address':
      return new QuireError('import_forbidden_address', `${label}: ${reason.message}.`);
    case 'timeout':
      return new QuireError('import_timeout', `${label}: not fetched within the import time limit.`);
    case 'stalled':
      return new QuireError('import_timeout', `${label}: the transfer stalled (${reason.message}).`);
    case 'scheme':
      return new QuireError('import_failed', `${label}: ${reason.message}.`);
    case 'network':
      return new QuireError('import_failed', `${label}: ${reason.message}.`);
  }
}

/** Counts bytes against the plan's per-file limit and sniffs the type from the first bytes. */
class ImportGuard extends Transform {
  contentType: string | undefined;
  private head: Buffer[] = [];
  private headBytes = 0;
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly accepts: readonly string[],
    private readonly label: string,
  ) {
    super();
  }

  refused(): QuireError {
    return new QuireError(
      'unsupported_file',
      `${this.label}: the content is not of an accepted type (${this.accepts.join(', ')}).`,
    );
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    // Stops reading at the limit: the rest of a huge body is never fetched, let alone held.
    if (this.bytes > this.maxBytes) {
      callback(new QuireError('import_too_large', `${this.label}: larger than ${this.maxBytes} bytes.`));
      return;
    }
    if (this.headBytes >= SNIFF_BYTES) {
      callback(null, chunk);
      return;
    }
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes < SNIFF_BYTES) callback();
    else this.flushHead(callback);
  }

  override _flush(callback: TransformCallback): void {
    if (this.headBytes < SNIFF_BYTES) this.flushHead(callback);
    else callback();
  }

  private flushHead(callback: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.headBytes = Math.max(this.headBytes, SNIFF_BYTES);
    this.contentType = sniffContentType(head);
    if (!this.contentType || !this.accepts.includes(this.contentType)) callback(this.refused());
    else callback(null, head);
  }
}
