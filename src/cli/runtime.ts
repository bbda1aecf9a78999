// The composition root's building blocks: open every dependency from the config, once.
// `serve`, `api` and `worker` differ only in what they start on top of this.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { KeyCache } from '../auth/key-cache.js';
import { loadServerKeys, type ServerKeys } from '../auth/server-secret.js';
import { openBlobStore } from '../blobs/open.js';
import type { BlobStore } from '../blobs/types.js';
import type { Config } from '../config/config.js';
import { closeEngines, createEngines, type Engines, probeEngines } from '../engines/index.js';
import { QPDF_FORKSERVER, qpdfForkServer } from '../engines/qpdf/forkserver/binary.js';
import type { EngineModule, EngineStatus } from '../engines/types.js';
import { openServices, type Services } from '../jobs/services.js';
import { JobEvents } from '../model/job-change.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import { guardedLookup } from '../outbound/address-guard.js';
import { EXEC_HELPER, execHelper } from '../process/limits.js';
import type { Database } from '../store/job-stores.js';
import { withLocalRateLimits } from '../store/local-rate-limiter.js';
import { openDatabase } from '../store/open.js';
import { ToolCatalog } from '../tools/framework/catalog.js';
import type { AnyToolDefinition } from '../tools/framework/types.js';
import { tools } from '../tools/registry.js';
import { openUploads, type Uploads } from '../uploads/uploads.js';

export interface Runtime {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  keys: ServerKeys;
  db: Database;
  blobs: BlobStore;
  engines: Engines;
  engineStatus: EngineStatus[];
  catalog: ToolCatalog;
  events: JobEvents;
  /** The only writers of job and batch state, shared by the routes, the workers and the sweeper. */
  services: Services;
  uploads: Uploads;
  close(): Promise<void>;
}

/** Engine modules and tools beyond the production lists: only the fault-injection tier's fakes. */
export interface RuntimeExtras {
  engines?: readonly EngineModule[];
  tools?: readonly AnyToolDefinition[];
}

export async function openRuntime(
  config: Config,
  logger = createLogger(config.logLevel),
  extras: RuntimeExtras = {},
): Promise<Runtime> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  await mkdir(config.tmpDir, { recursive: true, mode: 0o700 });
  const keys = loadServerKeys(config.secret, config.dataDir);
  const opened = await openDatabase(config.databaseUrl, { poolMax: config.databasePoolMax });
  await opened.migrate();
  const db = withRequestState(opened, config, logger);
  const blobs = await openBlobStore(config.storageUrl, {
    secret: keys.fileTokenKey,
    publicBaseUrl: config.http.publicBaseUrl,
  });
  const metrics = createMetrics();
  const uploads = await openUploads(config, db.uploads, blobs, metrics.uploads);
  metrics.setQueueDepthSource(() => db.jobs.countByStatus());
  const engineStatus = await probeEngines(extras.engines);
  for (const engine of engineStatus) {
    if (!engine.available)
      logger.warn(
        { engine: engine.name, reason: engine.reason },
        'engine unavailable; its tools are disabled',
      );
  }
  if (execHelper() === null)
    logger.warn(
      { helper: EXEC_HELPER },
      'exec helper not built; engines start through util-linux setpriv/prlimit',
    );
  if (config.limits.qpdfForkServer && qpdfForkServer() === null)
    logger.info({ forkserver: QPDF_FORKSERVER }, 'qpdf forkserver not built; qpdf starts anew for every run');
  const engines = createEngines({
    timeoutMs: config.limits.engineTimeoutMs,
    memoryBytes: config.limits.engineMemoryBytes,
    qpdfForkServer: config.limits.qpdfForkServer,
    durations: metrics.engineDuration,
    heavy: {
      ...config.heavyEngines,
      isolateNetwork: engineStatus.some((e) => e.name === 'netns' && e.available),
      workRoot: path.join(config.tmpDir, 'pools'),
    },
    ...(config.signing.tsaUrl
      ? {
          timestampAuthority: {
            url: config.signing.tsaUrl,
            lookup: guardedLookup(config.signing.tsaAllowPrivate),
          },
        }
      : {}),
    extra: extras.engines,
  });
  const events = new JobEvents();
  // Other processes' job changes (PostgreSQL NOTIFY) join this process's own: idle workers wake,
  // long-polls and SSE answer, and a job canceled through another API process stops here at once.
  await db.listenForChanges?.((change) => events.emit(change));
  return {
    config,
    logger,
    metrics,
    keys,
    db,
    blobs,
    engines,
    engineStatus,
    catalog: new ToolCatalog([...tools, ...(extras.tools ?? [])], engineStatus),
    events,
    services: openServices(db, { blobs, events, webhookSecretKey: keys.webhookSecretKey, uploads }),
    uploads,
    close: async () => {
      // Pooled LibreOffice and Chromium instances would otherwise outlive a closed runtime in tests.
      await closeEngines(engines, extras.engines);
      await db.close();
    },
  };
}

/**
 * Local request state (docs/api.md §5): rate limits in memory and verified keys cached, for a process
 * that is the only one serving the API on its database; `auto` is local here, and `quire api` makes
 * it shared.
 */
function withRequestState(db: Database, config: Config, logger: Logger): Database {
  if (config.requestState === 'shared') return db;
  const local = withLocalRateLimits(db, config.rateLimitSyncMs, (error) =>
    logger.warn({ err: { type: (error as Error).name } }, 'rate limits not synced; retrying'),
  );
  return { ...local, accounts: new KeyCache(db.accounts, config.authCacheMs) };
}
