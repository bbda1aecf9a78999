// Job slots per worker process, the lease on a claimed job and the sweeper: `config.worker`.
import os from 'node:os';
import { int, type Section, setting } from '../section.js';

export const worker = {
  QUIRE_WORKER_CONCURRENCY: setting(
    'concurrency',
    int(
      1,
      256,
      Math.max(1, os.availableParallelism()),
      'Jobs run at once per worker process (default: cores).',
    ),
  ),
  QUIRE_WORKER_POLL_MS: setting(
    'pollMs',
    int(10, 60_000, 500, 'How often an idle worker looks for work when not woken in-process.'),
  ),
  QUIRE_JOB_LEASE_MS: setting(
    'leaseMs',
    int(
      1_000,
      3_600_000,
      30_000,
      'Lease on a claimed job; renewed at half. A worker silent this long loses the job.',
    ),
  ),
  QUIRE_JOB_MAX_STALLS: setting(
    'maxStalls',
    int(1, 100, 3, 'Lease expiries after which a job fails with `worker_lost`.'),
  ),
  QUIRE_SWEEP_INTERVAL_MS: setting(
    'sweepIntervalMs',
    int(100, 3_600_000, 5_000, 'How often expired leases and results are swept.'),
  ),
} satisfies Section;
