// Exports (docs/api.md §2, `export`): after the tool, the worker PUTs the result to the job's
// presigned URL (S3, GCS or an Azure SAS), streamed from the blob store with its Content-Length and
// through the SSRF guard; the job succeeds only once the target answers 2xx.
import type { BlobStore } from '../blobs/types.js';
import type { Config } from '../config/config.js';
import { QuireError } from '../errors/quire-error.js';
import type { JobResult, TransferTarget } from '../model/job.js';
import { readExcerpt } from '../outbound/request.js';
import type { ClaimedJob } from '../store/types.js';
import { classify, exchange, TransferError, transferSignals } from './transfer-http.js';

export interface ExportDeps {
  config: Pick<Config, 'transfers'>;
  blobs: BlobStore;
}

/** Enough of a refusal to say why (S3's `<Code>SignatureDoesNotMatch</Code>`), never more. */
const EXCERPT_BYTES = 200;

export async function exportResult(
  claim: ClaimedJob,
  result: JobResult,
  jobSignal: AbortSignal,
  deps: ExportDeps,
): Promise<void> {
  const target = claim.job.transferSecrets?.export;
  if (!claim.job.transfers.export) return;
  if (!target) throw new QuireError('export_failed', 'The export URL is no longer held.');
  const { transfers } = deps.config;
  const { signal, deadline, watch } = transferSignals(jobSignal, transfers.exportTimeoutMs, transfers);
  try {
    const response = await exchange({
      method: 'PUT',
      url: new URL(target.url),
      headers: exportHeaders(target),
      signal,
      deadline,
      watch,
      allowPrivate: transfers.allowPrivate,
      body: { stream: await deps.blobs.get(result.blobKey), length: result.size },
    });
    const status = response.statusCode ?? 0;
    const excerpt = (await readExcerpt(response, EXCERPT_BYTES)) ?? '';
    if (status < 200 || status >= 300) {
      const code = /<Code>([A-Za-z]+)<\/Code>/.exec(excerpt)?.[1];
      throw new QuireError(
        'export_failed',
        `The export target answered ${status}${code ? ` (${code})` : ''}.`,
      );
    }
  } catch (error) {
    throw exportError(error, jobSignal, deadline);
  }
}

/**
 * Azure's Put Blob needs `x-ms-blob-type`; a SAS URL cannot carry it, so it is added for Azure hosts
 * unless the client gave its own. Other stores take a plain PUT with the headers the URL was signed for.
 */
export function exportHeaders(target: TransferTarget): Record<string, string> {
  const given = Object.keys(target.headers).map((h) => h.toLowerCase());
  const azure = new URL(target.url).hostname.endsWith('.blob.core.windows.net');
  return azure && !given.includes('x-ms-blob-type')
    ? { 'x-ms-blob-type': 'BlockBlob', ...target.headers }
    : { ...target.headers };
}

/**
 * How long the result stays downloadable: none at all for `export.keep_result: false`, so the job
 * ends already expired (no download between the end and the deletion that follows).
 */
export function retentionOf(claim: ClaimedJob, limits: { resultRetentionMs: number }): number {
  return claim.job.transfers.export?.keepResult === false ? 0 : limits.resultRetentionMs;
}

function exportError(error: unknown, jobSignal: AbortSignal, deadline: AbortSignal): unknown {
  if (error instanceof QuireError) return error;
  if (jobSignal.aborted) return jobSignal.reason ?? error;
  const reason = classify(error, { deadline });
  if (!(reason instanceof TransferError)) return reason;
  const why =
    reason.reason === 'timeout'
      ? 'not finished within the export time limit'
      : reason.reason === 'stalled'
        ? `the transfer stalled (${reason.message})`
        : reason.message;
  return new QuireError('export_failed', `The export did not complete: ${why}.`);
}
