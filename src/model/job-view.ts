// The public job object (docs/api.md §2): snake_case, RFC 3339 times, secrets redacted, links.
import { type JobRecord, jobSteps } from './job.js';
import { scrubSecretOptions } from './redact.js';
import { firstStepOptions } from './step-secrets.js';

/** RFC 3339 UTC without milliseconds, as docs/api.md writes timestamps. */
export const rfc3339 = (ms: number | null) =>
  ms === null ? undefined : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function jobView(job: JobRecord): Record<string, unknown> {
  const self = `/api/v1/jobs/${job.id}`;
  const view: Record<string, unknown> = {
    id: job.id,
    object: 'job',
    tool: job.tool,
    options: firstStepOptions(scrubSecretOptions(job.options, job.secretOptions)),
    status: job.status,
    progress: job.status === 'succeeded' ? 100 : Math.min(job.progress, 99),
    // How many times a worker has started the job; above 1 after a worker was lost (docs/api.md).
    attempts: job.attempts,
    input: {
      files: job.inputs.map((f, index) => ({
        name: f.name,
        size: f.size,
        content_type: f.contentType,
        ...importView(job, index),
      })),
    },
    metadata: job.metadata,
    created_at: rfc3339(job.createdAt),
    started_at: rfc3339(job.startedAt),
    completed_at: rfc3339(job.completedAt),
    expires_at: rfc3339(job.expiresAt),
    links: { self, download: `${self}/download` },
    ...transfersView(job),
  };
  Object.assign(view, stepsView(job));
  if (job.status === 'failed' && job.error) view.error = { ...job.error };
  if (job.status === 'succeeded' && job.result) {
    view.result = {
      name: job.result.name,
      size: job.result.size,
      content_type: job.result.contentType,
      expires_at: rfc3339(job.expiresAt),
      ...job.result.facts,
    };
  }
  return view; // undefined members (unknown times) are dropped by JSON serialisation
}

/**
 * A job of several steps shows them all (every step's secrets redacted like `options`) and, while
 * processing, the step running; a one-tool job shows neither.
 */
function stepsView(job: JobRecord): Record<string, unknown> {
  if (job.nextSteps.length === 0) return {};
  const steps = jobSteps(job).map((step, index) => ({
    tool: step.tool,
    options:
      index === 0 ? firstStepOptions(scrubSecretOptions(step.options, job.secretOptions)) : step.options,
  }));
  const current = job.status === 'processing' ? job.currentStep : null;
  const running = current === null ? undefined : steps[current];
  return running ? { steps, step: { index: current, tool: running.tool } } : { steps };
}

/** An imported input names its source's host only: the URL may carry a signature (docs/api.md §2). */
function importView(job: JobRecord, index: number): Record<string, unknown> {
  const source = job.transfers.imports.find((i) => i.input === index);
  return source ? { source: { type: 'url', host: source.host } } : {};
}

function transfersView(job: JobRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  if (job.batchId) view.batch_id = job.batchId;
  if (job.recipe) view.recipe = { id: job.recipe.id, name: job.recipe.name, version: job.recipe.version };
  const target = job.transfers.export;
  if (target) view.export = { host: target.host, keep_result: target.keepResult };
  if (job.transfers.webhookHost) view.webhook = { host: job.transfers.webhookHost };
  return view;
}
