// Runs one claimed job: inputs from the blob store into a private work dir, the tool, the result back
// into the blob store, and the terminal write — which succeeds only while the lease is still held.
import { statSync } from 'node:fs';
import path from 'node:path';
import { jobFolder } from '../blobs/keys.js';
import type { BlobStore } from '../blobs/types.js';
import type { Config } from '../config/config.js';
import type { JobLimits } from '../config/plans.js';
import type { Engines } from '../engines/index.js';
import { QuireError } from '../errors/quire-error.js';
import type { JobError, JobResult, StepRef } from '../model/job.js';
import type { JobEvents } from '../model/job-change.js';
import { runnableSteps } from '../model/step-secrets.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { openWorkDir, removeWorkDir } from '../process/work-dir.js';
import type { ClaimedJob } from '../store/types.js';
import type { ToolCatalog } from '../tools/framework/catalog.js';
import type { InputType, ToolInput } from '../tools/framework/types.js';
import { exportResult, retentionOf } from './export.js';
import { failureKind, toJobError } from './failure.js';
import { importInputs } from './import.js';
import { JobBudget } from './job-budget.js';
import { LeaseLostError } from './lease-keeper.js';
import { JobProgress, ProgressWriter } from './progress-writer.js';
import type { Services } from './services.js';
import { runSteps, type StepRecord } from './steps.js';

export interface RunJobDeps {
  config: Config;
  /** The job's writes (step, progress, inputs, the end) go through `services.jobs` alone. */
  services: Pick<Services, 'jobs'>;
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

/**
 * Where each part of a job runs (worker.ts): the tools in one of the worker's engine slots, the
 * network transfers (URL imports, the export) in the transfer pool, holding no slot meanwhile.
 */
export interface JobPhases {
  engine<T>(work: () => Promise<T>): Promise<T>;
  transfer<T>(work: () => Promise<T>): Promise<T>;
}

/** `limits` are the job's plan's, capped by the server-wide settings (plans.ts accountLimits). */
export async function runJob(
  claim: ClaimedJob,
  signal: AbortSignal,
  deps: RunJobDeps,
  limits: JobLimits,
  phases: JobPhases,
): Promise<void> {
  const { job } = claim;
  const log = deps.logger.child({ job: job.id, tool: job.tool, attempt: job.attempts });
  const started = Date.now();
  const service = deps.services.jobs;
  const progress = new JobProgress();
  const writer = new ProgressWriter(progress, service, claim);
  /** Recorded right after the terminal write, so metrics and waiters see the end together. */
  const ended = (outcome: string) => () => {
    const seconds = (Date.now() - started) / 1000;
    deps.metrics.jobsFinished.inc({ tool: job.tool, outcome });
    deps.metrics.jobDuration.observe({ tool: job.tool, outcome }, seconds);
    log.info({ outcome, ms: Math.round(seconds * 1000) }, 'job finished');
  };
  let terminal = false;
  const running = new RunningStep(claim, service);
  let workDir: string | undefined;
  try {
    if (hasPendingImports(claim))
      await phases.transfer(() =>
        importInputs(claim, signal, deps, limits.maxFileBytes, acceptsOf(deps, job.tool)),
      );
    const result = await phases.engine(async () => {
      // Opened and removed here rather than through withWorkDir, so the job's run is not a callback
      // of process/ (docs/architecture.md, "The call path of a job").
      workDir = openWorkDir(deps.config.tmpDir);
      return execute(claim, workDir, signal, { progress, writer, running }, deps, limits);
    });
    if (job.transfers.export) await phases.transfer(() => exportResult(claim, result, signal, deps));
    terminal = await service.complete(claim, result, retentionOf(claim, limits), ended('succeeded'));
    // Lost the lease between the engine and the write: the job belongs to someone else now.
    if (!terminal) throw signal.reason ?? new LeaseLostError('lease lost before completion');
    await service.dropUnkeptResult(claim, result);
  } catch (error) {
    writer.stop();
    if (terminal) {
      log.warn({ err: { type: (error as Error).name } }, 'cleanup after the job failed');
    } else if (signal.aborted || error instanceof LeaseLostError) {
      log.info({ why: (signal.reason as Error | undefined)?.message }, 'job stopped without writing');
    } else {
      const jobError = running.name(toJobError(error));
      const kind = failureKind(jobError.code as Parameters<typeof failureKind>[0]);
      if (kind === 'system')
        log.error({ err: { type: (error as Error).name, stack: (error as Error).stack } }, 'job failed');
      else log.info({ code: jobError.code }, 'job failed');
      await service.fail(claim, jobError, ended(jobError.code));
    }
  } finally {
    writer.stop();
    // After the terminal write, so a waiter's answer (POST /run's result) goes out first: the
    // result is already the blob store's. A succeeded job's dir, emptied, may serve the next job:
    // its engine runs have all ended. A leftover directory is the stale-dir sweep's
    // (removeStaleWorkDirs), as after a kill.
    if (workDir)
      await removeWorkDir(workDir, { reuse: terminal }).catch(() => log.warn('work dir not removed'));
  }
}

/** Inputs in, the job's steps (each opened as its tool declares), the result out to the blob store. */
async function execute(
  claim: ClaimedJob,
  workDir: string,
  signal: AbortSignal,
  report: { progress: JobProgress; writer: ProgressWriter; running: RunningStep },
  deps: RunJobDeps,
  limits: JobLimits,
): Promise<JobResult> {
  const { job } = claim;
  const steps = runnableSteps(job).map((step) => {
    const entry = deps.catalog.get(step.tool);
    if (!entry?.available) throw toolMissing(step.tool);
    return { tool: entry.tool, options: step.options };
  });
  const inputs = await fetchInputs(claim, workDir, deps.blobs);
  signal.throwIfAborted();
  const budget = new JobBudget({ maxPages: limits.maxPages, ...limits.job }, steps.length);
  budget.watch(workDir);
  report.writer.start();
  const { output, steps: done } = await runSteps(steps, inputs, {
    workDir,
    // The lease's signal, or the budget's once a whole-job limit is passed mid-step.
    signal: AbortSignal.any([signal, budget.signal]),
    engines: deps.engines,
    account: job.accountId,
    limits: {
      maxPages: limits.maxPages,
      timeoutMs: deps.config.limits.engineTimeoutMs,
      memoryBytes: deps.config.limits.engineMemoryBytes,
      maxOutputBytes: limits.job.maxOutputBytes,
    },
    budget,
    progress: report.progress,
    onStep: (step) => report.running.enter(step),
  })
    .catch((error: unknown) => {
      // An engine stopped by the budget reports an abort; the job fails with the limit it passed.
      throw signal.aborted ? error : (budget.exceeded ?? error);
    })
    .finally(() => budget.end());
  signal.throwIfAborted();
  // A stat on this thread, as the blob store's calls on names (blobs/local.ts says why).
  budget.checkOutput(statSync(output.path).size);
  report.writer.stop();
  // One key per attempt: an attempt that lost its lease (paused, partitioned) and uploads late can
  // only ever overwrite or delete its own object, never the result another attempt recorded.
  const blobKey = `${jobFolder(job.id)}/result-${claim.leaseToken}`;
  const { size } = await deps.blobs.upload(blobKey, output.path);
  // A one-tool job's facts are its tool's alone, as before steps existed.
  const facts = steps.length === 1 ? (output.facts ?? {}) : { ...lastFacts(done), steps: done };
  return { name: output.name, size, contentType: output.contentType, blobKey, facts };
}

/** The last step's own facts, when it ran once (not per file after a fan-out). */
function lastFacts(done: readonly StepRecord[]): Record<string, unknown> {
  const last = done.at(-1);
  return last && 'facts' in last ? last.facts : {};
}

/**
 * The step a job of several steps is running: recorded on the job for its view (under the lease,
 * once per change) and named on the error when the job fails.
 */
class RunningStep {
  private current: StepRef | undefined;
  private readonly several: boolean;
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly claim: ClaimedJob,
    private readonly service: Services['jobs'],
  ) {
    this.several = claim.job.nextSteps.length > 0;
  }

  enter(step: StepRef): void {
    const changed = this.current?.index !== step.index;
    this.current = step;
    if (!this.several || !changed) return;
    // Advisory like progress: a failed write leaves the previous step shown, nothing else. Chained,
    // so the writes land in the order the steps ran.
    this.writes = this.writes
      .then(() => this.service.setStep(this.claim, step.index))
      .then(
        () => undefined,
        () => undefined,
      );
  }

  /** The job error naming the step it happened in (jobs of several steps only). */
  name(error: JobError): JobError {
    if (!this.several || !this.current) return error;
    const { index, tool } = this.current;
    return { ...error, message: `Step ${index + 1} (${tool}): ${error.message}`, step: { index, tool } };
  }
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

/** Inputs given as URLs and not fetched yet (a retried job does not fetch again). */
function hasPendingImports(claim: ClaimedJob): boolean {
  return claim.job.inputs.some((input) => input.source === 'url' && input.contentType === '');
}

function acceptsOf(deps: RunJobDeps, tool: string): readonly string[] {
  return deps.catalog.get(tool)?.tool.inputs.accepts ?? [];
}

function toolMissing(name: string): QuireError {
  return new QuireError(
    'engine_unavailable',
    `The engine the "${name}" tool needs is not installed on this worker.`,
  );
}
