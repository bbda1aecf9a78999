// Runs one claimed job: inputs from the blob store into a private work dir, the tool, the result back
// into the blob store, and the terminal write — which succeeds only while the lease is still held.
import path from 'node:path';
import { jobFolder } from '../blobs/keys.js';
import type { BlobStore } from '../blobs/types.js';
import type { Config } from '../config/config.js';
import type { Engines } from '../engines/types.js';
import { QuireError } from '../errors/quire-error.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { withWorkDir } from '../process/work-dir.js';
import type { ClaimedJob, JobResult, JobStore } from '../store/types.js';
import type { ToolCatalog } from '../tools/catalog.js';
import type { InputType, ToolInput } from '../tools/types.js';
import type { JobEvents } from './events.js';
import { failureKind, toJobError } from './failure.js';
import { LeaseLostError } from './lease-keeper.js';
import { createProgressReporter } from './progress.js';
import { ProgressWriter } from './progress-writer.js';

export interface RunJobDeps {
  config: Config;
  jobs: JobStore;
  blobs: BlobStore;
  catalog: ToolCatalog;
  engines: Engines;
  events: JobEvents;
  logger: Logger;
  metrics: Metrics;
}

const EXTENSIONS: Record<InputType, string> = {
  'application/pdf': '.pdf',
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/tiff': '.tif',
  'image/webp': '.webp',
  'image/gif': '.gif',
  // LibreOffice picks its import filter by extension first, so each office type keeps its own.
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': '.docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': '.xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': '.pptx',
  'application/vnd.oasis.opendocument.text': '.odt',
  'application/vnd.oasis.opendocument.spreadsheet': '.ods',
  'application/vnd.oasis.opendocument.presentation': '.odp',
  'application/msword': '.doc',
  'application/vnd.ms-excel': '.xls',
  'application/vnd.ms-powerpoint': '.ppt',
  'application/x-ole-storage': '.doc',
  'application/rtf': '.rtf',
  'text/plain': '.txt',
  'text/csv': '.csv',
  'text/html': '.html',
  'application/zip': '.zip',
};

export async function runJob(claim: ClaimedJob, signal: AbortSignal, deps: RunJobDeps): Promise<void> {
  const { job, leaseToken } = claim;
  const log = deps.logger.child({ job: job.id, tool: job.tool, attempt: job.attempts });
  const started = Date.now();
  const progress = new ProgressWriter(deps.jobs, deps.events, job.id, leaseToken);
  /** Called right after the terminal write, so metrics and waiters see the end together. */
  const ended = (outcome: string) => {
    const seconds = (Date.now() - started) / 1000;
    deps.metrics.jobsFinished.inc({ tool: job.tool, outcome });
    deps.metrics.jobDuration.observe({ tool: job.tool, outcome }, seconds);
    deps.events.emit({ jobId: job.id, kind: 'terminal' });
    log.info({ outcome, ms: Math.round(seconds * 1000) }, 'job finished');
  };
  let terminal = false;
  try {
    await withWorkDir(deps.config.tmpDir, async (workDir) => {
      const result = await execute(claim, workDir, signal, progress, deps);
      // One clock reading, so expires_at − completed_at is exactly the retention period.
      const now = Date.now();
      if (
        !(await deps.jobs.complete(job.id, leaseToken, result, now + deps.config.retention.resultMs, now))
      ) {
        // Lost the lease between the engine and the write: the job belongs to someone else now.
        await deps.blobs.delete(result.blobKey);
        throw signal.reason ?? new LeaseLostError('lease lost before completion');
      }
      terminal = true;
      ended('succeeded');
    });
  } catch (error) {
    progress.stop();
    if (terminal) {
      log.warn({ err: { type: (error as Error).name } }, 'cleanup after the job failed');
    } else if (signal.aborted || error instanceof LeaseLostError) {
      log.info({ why: (signal.reason as Error | undefined)?.message }, 'job stopped without writing');
    } else {
      const jobError = toJobError(error);
      const kind = failureKind(jobError.code as Parameters<typeof failureKind>[0]);
      if (kind === 'system')
        log.error({ err: { type: (error as Error).name, stack: (error as Error).stack } }, 'job failed');
      else log.info({ code: jobError.code }, 'job failed');
      terminal = await deps.jobs.fail(job.id, leaseToken, jobError);
      if (terminal) ended(jobError.code);
    }
  } finally {
    progress.stop();
  }
  if (terminal) await deleteInputs(claim, deps);
}

/** Inputs in, the tool, the result out to the blob store; returns the result to record. */
async function execute(
  claim: ClaimedJob,
  workDir: string,
  signal: AbortSignal,
  progress: ProgressWriter,
  deps: RunJobDeps,
): Promise<JobResult> {
  const { job } = claim;
  const entry = deps.catalog.get(job.tool);
  if (!entry?.available) throw toolMissing(job.tool);
  const inputs = await fetchInputs(claim, workDir, deps.blobs);
  signal.throwIfAborted();
  const output = await entry.tool.run({
    options: job.options,
    inputs,
    workDir,
    signal,
    progress: createProgressReporter(entry.tool.steps ?? { run: 100 }, (p) => progress.offer(p.percent)),
    engines: deps.engines,
    limits: {
      maxPages: deps.config.limits.maxPages,
      timeoutMs: deps.config.limits.engineTimeoutMs,
      memoryBytes: deps.config.limits.engineMemoryBytes,
    },
  });
  signal.throwIfAborted();
  progress.stop();
  // One key per attempt: an attempt that lost its lease (paused, partitioned) and uploads late can
  // only ever overwrite or delete its own object, never the result another attempt recorded.
  const blobKey = `${jobFolder(job.id)}/result-${claim.leaseToken}`;
  const { size } = await deps.blobs.upload(blobKey, output.path);
  return { name: output.name, size, contentType: output.contentType, blobKey, facts: output.facts ?? {} };
}

async function fetchInputs(claim: ClaimedJob, workDir: string, blobs: BlobStore): Promise<ToolInput[]> {
  return Promise.all(
    claim.job.inputs.map(async (file, index) => {
      const contentType = file.contentType as InputType;
      const local = path.join(workDir, `input-${index}${EXTENSIONS[contentType] ?? ''}`);
      await blobs.download(file.blobKey, local);
      return { path: local, name: file.name, size: file.size, contentType };
    }),
  );
}

/** Inputs go as soon as the job ends (docs/api.md §2); the sweeper retries whatever fails here. */
async function deleteInputs(claim: ClaimedJob, deps: RunJobDeps): Promise<void> {
  try {
    await Promise.all(claim.job.inputs.map((f) => deps.blobs.delete(f.blobKey)));
    await deps.jobs.markInputsDeleted(claim.job.id);
  } catch {
    // Left for the sweeper.
  }
}

function toolMissing(name: string): QuireError {
  return new QuireError(
    'engine_unavailable',
    `The engine the "${name}" tool needs is not installed on this worker.`,
  );
}
