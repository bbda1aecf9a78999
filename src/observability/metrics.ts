// Prometheus metrics (docs/api.md §9): HTTP latency by route template, jobs by tool and outcome,
// queue depth and engine durations. One registry per process.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { JobStatus } from '../model/job.js';

/** Resumable uploads (tus): what the uploads module counts. */
export interface UploadMetrics {
  bytesReceived: Counter;
  expired: Counter;
  /** Set the source for the active-uploads gauge (unfinished uploads, read at scrape time). */
  setActiveSource(source: () => Promise<number>): void;
}

export interface Metrics {
  uploads: UploadMetrics;
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  jobsFinished: Counter<'tool' | 'outcome'>;
  jobDuration: Histogram<'tool' | 'outcome'>;
  engineDuration: Histogram<'engine'>;
  /** Set the source for the queue-depth gauge (read lazily at scrape time). */
  setQueueDepthSource(source: () => Promise<Record<JobStatus, number>>): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let depthSource: (() => Promise<Record<JobStatus, number>>) | undefined;

  const httpDuration = new Histogram({
    name: 'quire_http_request_duration_seconds',
    help: 'HTTP request duration by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const jobsFinished = new Counter({
    name: 'quire_jobs_finished_total',
    help: 'Jobs that reached a terminal state, by tool and outcome (succeeded, or the error code).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
  });
  const jobDuration = new Histogram({
    name: 'quire_job_run_seconds',
    help: 'Time from claim to terminal state, by tool and outcome.',
    labelNames: ['tool', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
    registers: [registry],
  });
  const engineDuration = new Histogram({
    name: 'quire_engine_run_seconds',
    help: 'Duration of engine subprocess runs, by engine.',
    labelNames: ['engine'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
    registers: [registry],
  });
  new Gauge({
    name: 'quire_jobs',
    help: 'Jobs by status (queued = queue depth, processing = running).',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      if (!depthSource) return;
      const counts = await depthSource();
      for (const [status, count] of Object.entries(counts)) this.set({ status }, count);
    },
  });

  return {
    registry,
    uploads: uploadMetrics(registry),
    httpDuration,
    jobsFinished,
    jobDuration,
    engineDuration,
    setQueueDepthSource(source) {
      depthSource = source;
    },
  };
}

function uploadMetrics(registry: Registry): UploadMetrics {
  let activeSource: (() => Promise<number>) | undefined;
  new Gauge({
    name: 'quire_uploads_active',
    help: 'Resumable uploads created and not yet finished (all processes: read from the database).',
    registers: [registry],
    async collect() {
      if (activeSource) this.set(await activeSource());
    },
  });
  return {
    bytesReceived: new Counter({
      name: 'quire_upload_bytes_received_total',
      help: 'Bytes of resumable-upload chunks written to storage by this process.',
      registers: [registry],
    }),
    expired: new Counter({
      name: 'quire_uploads_expired_total',
      help: 'Resumable uploads deleted by the sweeper past their expiry.',
      registers: [registry],
    }),
    setActiveSource(source) {
      activeSource = source;
    },
  };
}
