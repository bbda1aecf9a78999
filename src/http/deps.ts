// What the HTTP layer needs; composition roots build it and tests build it with test settings.
import type { ServerKeys } from '../auth/server-secret.js';
import type { BlobStore } from '../blobs/types.js';
import type { Config } from '../config/config.js';
import type { EngineStatus } from '../engines/types.js';
import type { JobEvents } from '../model/job-change.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Database } from '../store/types.js';
import type { ToolCatalog } from '../tools/framework/catalog.js';
import type { Uploads } from '../uploads/uploads.js';

export interface AppDeps {
  config: Config;
  db: Database;
  blobs: BlobStore;
  keys: ServerKeys;
  catalog: ToolCatalog;
  engineStatus: readonly EngineStatus[];
  events: JobEvents;
  logger: Logger;
  metrics: Metrics;
  uploads: Uploads;
}
