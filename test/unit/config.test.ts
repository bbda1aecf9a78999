import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ConfigError } from '../../src/config/section.js';

describe('configuration', () => {
  it('uses documented defaults under the data directory', () => {
    const config = loadConfig({ QUIRE_DATA_DIR: '/tmp/quire-x' });
    expect(config.http.port).toBe(8080);
    expect(config.databaseUrl).toBe('sqlite:///tmp/quire-x/quire.db');
    expect(config.storageUrl).toBe('file:///tmp/quire-x/files');
    expect(config.worker.concurrency).toBeGreaterThanOrEqual(1);
    expect(config.worker.maxStalls).toBe(3);
  });

  it('converts numeric variables', () => {
    expect(loadConfig({ QUIRE_PORT: '9000', QUIRE_JOB_LEASE_MS: '5000' }).worker.leaseMs).toBe(5000);
  });

  it.each([
    [{ QUIRE_PORT: 'eighty' }, 'QUIRE_PORT'],
    [{ QUIRE_PORT: '70000' }, 'QUIRE_PORT'],
    [{ QUIRE_LOG_LEVEL: 'loud' }, 'QUIRE_LOG_LEVEL'],
    [{ QUIRE_WORKER_CONCURRENCY: '0' }, 'QUIRE_WORKER_CONCURRENCY'],
    [{ QUIRE_DATABASE_URL: 'mysql://x' }, 'QUIRE_DATABASE_URL'],
    [{ QUIRE_SECRET: 'short' }, 'QUIRE_SECRET'],
    [{ QUIRE_PROT: '1' }, 'QUIRE_PROT'],
  ])('fails fast naming the bad variable (%o)', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});
