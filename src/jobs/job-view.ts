// The public job object (contract §2): snake_case, RFC 3339 times, secrets redacted, links.
import type { JobRecord } from '../store/types.js';

export const REDACTED = '[redacted]';

const iso = (ms: number | null) =>
  ms === null ? undefined : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function redactOptions(
  options: Record<string, unknown>,
  secretOptions: readonly string[],
): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...options };
  for (const name of secretOptions) if (name in copy) copy[name] = REDACTED;
  return copy;
}

export function jobView(job: JobRecord): Record<string, unknown> {
  const self = `/api/v1/jobs/${job.id}`;
  const view: Record<string, unknown> = {
    id: job.id,
    object: 'job',
    tool: job.tool,
    options: redactOptions(job.options, job.secretOptions),
    status: job.status,
    progress: job.status === 'succeeded' ? 100 : Math.min(job.progress, 99),
    // How many times a worker has started the job; above 1 after a worker was lost (docs/api.md).
    attempts: job.attempts,
    input: {
      files: job.inputs.map((f) => ({ name: f.name, size: f.size, content_type: f.contentType })),
    },
    metadata: job.metadata,
    created_at: iso(job.createdAt),
    started_at: iso(job.startedAt),
    completed_at: iso(job.completedAt),
    expires_at: iso(job.expiresAt),
    links: { self, download: `${self}/download` },
  };
  if (job.status === 'failed' && job.error) view.error = { ...job.error };
  if (job.status === 'succeeded' && job.result) {
    view.result = {
      name: job.result.name,
      size: job.result.size,
      content_type: job.result.contentType,
      expires_at: iso(job.expiresAt),
      ...job.result.facts,
    };
  }
  return view; // undefined members (unknown times) are dropped by JSON serialisation
}
