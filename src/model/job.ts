// The job as the domain knows it: its statuses, its record, its input files, result and error. Every
// layer (stores, workers, HTTP, webhooks, metrics) speaks these types.

/** Every status a job can have, in the order a job moves through them; the one list of them. */
export const jobStatuses = ['queued', 'processing', 'succeeded', 'failed', 'canceled'] as const;
export type JobStatus = (typeof jobStatuses)[number];
export const activeStatuses: readonly JobStatus[] = ['queued', 'processing'];
export const terminalStatuses: readonly JobStatus[] = ['succeeded', 'failed', 'canceled'];

export interface InputFile {
  name: string;
  size: number;
  contentType: string;
  /** Blob-store key; removed when the job ends. */
  blobKey: string;
  /** `url`: the worker fetches it (size and type are known once it has); absent for uploads. */
  source?: 'url';
}

export interface JobResult {
  name: string;
  size: number;
  contentType: string;
  blobKey: string;
  /** Tool-specific public facts (compress: input_size, output_size, ratio; split: files). */
  facts: Record<string, unknown>;
}

export interface JobError {
  code: string;
  message: string;
  retryable: boolean;
  /** The step that failed, on a job of several steps (docs/api.md §2). */
  step?: StepRef;
}

/** One step of a job: a tool and its options, run on the previous step's output. */
export interface JobStep {
  tool: string;
  options: Record<string, unknown>;
}

/** A step as the job view and errors name it: its position (from 0) and its tool. */
export interface StepRef {
  index: number;
  tool: string;
}

/** What a job records of the recipe it ran (docs/api.md §13): its id, its name then, the version. */
export interface JobRecipe {
  id: string;
  name: string;
  version: number;
}

export interface JobRecord {
  id: string; // job_<ulid>
  accountId: string;
  tool: string;
  /** Options as given, secrets included while the job is active; secrets are scrubbed when it ends. */
  options: Record<string, unknown>;
  /** Option names holding secrets (scrubbed at the end, redacted in every view). */
  secretOptions: string[];
  metadata: Record<string, string>;
  inputs: InputFile[];
  status: JobStatus;
  progress: number;
  result: JobResult | null;
  error: JobError | null;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  /** When the result is deleted (succeeded jobs). */
  expiresAt: number | null;
  /** Set once the result blob has been deleted (retention or DELETE). */
  resultDeletedAt: number | null;
  /** Times the job's lease expired without the worker finishing it. */
  stalls: number;
  /** Times the job has been claimed. */
  attempts: number;
  /**
   * The steps after the first (`tool` and `options` are the first), each run on the previous
   * step's output; empty for a one-tool job. They hold no secrets: a later step's secret options
   * read `[redacted]` here and are kept in `options` under their pointers (step-secrets.ts).
   */
  nextSteps: JobStep[];
  /** The step a worker is running (0 = `tool`), while the job is processing. */
  currentStep: number | null;
  /** The batch the job was created in (docs/api.md §11), or null. */
  batchId: string | null;
  /** The recipe version whose steps the job runs (docs/api.md §13), or null. */
  recipe: JobRecipe | null;
  transfers: JobTransfers;
  /** Null once the job has ended (or when it never had any). */
  transferSecrets: JobTransferSecrets | null;
  /** Where the job's terminal event is also sent (docs/api.md §6); dropped when the job ends. */
  webhookUrl: string | null;
}

/**
 * Every step of the job in order, the first being its `tool` and `options`, as stored: the later
 * steps' secrets read `[redacted]` (a worker runs `runnableSteps`, step-secrets.ts).
 */
export function jobSteps(job: Pick<JobRecord, 'tool' | 'options' | 'nextSteps'>): JobStep[] {
  return [{ tool: job.tool, options: job.options }, ...job.nextSteps];
}

/**
 * Where a job's bytes come from and go beyond the upload (docs/api.md §2, "Import, export and
 * callbacks"), in the form every view may show: hosts only, never a URL's path, query or headers.
 */
export interface JobTransfers {
  /** Inputs fetched by the worker from a URL, by input index. */
  imports: Array<{ input: number; host: string }>;
  export: { host: string; keepResult: boolean } | null;
  webhookHost: string | null;
}

/** A URL with the headers to send to it (a signed storage link's Authorization, Azure's blob type). */
export interface TransferTarget {
  url: string;
  headers: Record<string, string>;
}

/**
 * The secret half: full URLs and headers, kept only while the job is active and dropped with its
 * inputs when it ends (docs/api.md §2), like secret options.
 */
export interface JobTransferSecrets {
  imports: Array<TransferTarget & { input: number }>;
  export: TransferTarget | null;
}

export const noTransfers: JobTransfers = { imports: [], export: null, webhookHost: null };

/**
 * Whether a job's result can still be downloaded until `until` (ms since the epoch): it succeeded,
 * its result was not deleted, and its retention does not end first. The one statement of that rule,
 * for a job's download link and a batch's ZIP.
 */
export function resultUsableUntil(job: JobRecord, until: number): job is JobRecord & { result: JobResult } {
  return (
    job.status === 'succeeded' &&
    job.result !== null &&
    job.resultDeletedAt === null &&
    (job.expiresAt === null || job.expiresAt > until)
  );
}
