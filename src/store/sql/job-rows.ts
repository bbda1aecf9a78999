// The mapping between job rows and the job records of src/model/: the one place that knows how each
// column of jobs is encoded (a store with rows of its own maps them itself).
import type { Insertable, Selectable } from 'kysely';
import {
  type InputFile,
  type JobError,
  type JobRecipe,
  type JobRecord,
  type JobResult,
  type JobStep,
  type JobTransferSecrets,
  type JobTransfers,
  noTransfers,
} from '../../model/job.js';
import type { NewJob } from '../types.js';
import type { JobsTable } from './tables.js';

export type JobRow = Selectable<JobsTable>;

/** The columns that end a lease: a terminal or requeued job has no holder. */
export const noLease = { lease_token: null, lease_expires_at: null, worker_id: null } as const;

export function toJob(row: JobRow): JobRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    tool: row.tool,
    options: JSON.parse(row.options) as Record<string, unknown>,
    secretOptions: JSON.parse(row.secret_options) as string[],
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    inputs: JSON.parse(row.inputs) as InputFile[],
    status: row.status,
    progress: row.progress,
    result: row.result === null ? null : (JSON.parse(row.result) as JobResult),
    error: row.error === null ? null : (JSON.parse(row.error) as JobError),
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    expiresAt: row.expires_at,
    resultDeletedAt: row.result_deleted_at,
    stalls: row.stalls,
    attempts: row.attempts,
    // Absent from the job state of events written before the steps migration.
    nextSteps: row.next_steps === undefined ? [] : (JSON.parse(row.next_steps) as JobStep[]),
    currentStep: row.current_step ?? null,
    // Absent in an event's job state written before the columns existed.
    batchId: row.batch_id ?? null,
    transfers: row.transfers ? (JSON.parse(row.transfers) as JobTransfers) : noTransfers,
    transferSecrets: row.transfer_secrets ? (JSON.parse(row.transfer_secrets) as JobTransferSecrets) : null,
    webhookUrl: row.webhook_url ?? null,
    // Absent in an event's job state written before the recipes migration.
    recipe: row.recipe ? (JSON.parse(row.recipe) as JobRecipe) : null,
  };
}

/** The input_bytes column: what a job's inputs add to its account's stored bytes (docs/api.md §5). */
export function inputBytes(inputs: readonly InputFile[]): number {
  return inputs.reduce((sum, input) => sum + input.size, 0);
}

export function fromNewJob(job: NewJob): Insertable<JobsTable> {
  return {
    id: job.id,
    account_id: job.accountId,
    tool: job.tool,
    options: JSON.stringify(job.options),
    secret_options: JSON.stringify(job.secretOptions),
    metadata: JSON.stringify(job.metadata),
    inputs: JSON.stringify(job.inputs),
    input_bytes: inputBytes(job.inputs),
    status: 'queued',
    progress: 0,
    result: null,
    error: null,
    created_at: job.createdAt,
    started_at: null,
    completed_at: null,
    expires_at: null,
    result_deleted_at: null,
    inputs_deleted_at: null,
    deleted_at: null,
    lease_token: null,
    lease_expires_at: null,
    worker_id: null,
    stalls: 0,
    attempts: 0,
    next_steps: JSON.stringify(job.nextSteps ?? []),
    current_step: null,
    batch_id: job.batchId ?? null,
    transfers: job.transfers ? JSON.stringify(job.transfers) : null,
    transfer_secrets: job.transferSecrets ? JSON.stringify(job.transferSecrets) : null,
    webhook_url: job.webhookUrl ?? null,
    recipe: job.recipe ? JSON.stringify(job.recipe) : null,
  };
}
