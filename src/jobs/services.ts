// The job and batch services, built once per process by the runtime (cli/runtime.ts) and handed to
// the routes (AppDeps), the workers and the sweeper: the one place job and batch state is written.
import type { BlobStore } from '../blobs/types.js';
import type { JobEvents } from '../model/job-change.js';
import type { Database } from '../store/job-stores.js';
import type { Uploads } from '../uploads/uploads.js';
import { BatchService } from './batch-service.js';
import { JobService } from './job-service.js';

export interface Services {
  jobs: JobService;
  batches: BatchService;
}

export function openServices(
  db: Database,
  deps: { blobs: BlobStore; events: JobEvents; webhookSecretKey: Buffer; uploads: Pick<Uploads, 'take'> },
): Services {
  const jobs = new JobService({ ...deps, jobs: db.jobs, webhooks: db.webhooks });
  return { jobs, batches: new BatchService(db.batches, jobs) };
}
