// Plans as configuration (file, then QUIRE_PLAN_* variables, validated at start) and the
// Idempotency-Key header grammar: pure functions, table-driven.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { accountLimits } from '../../src/config/plans.js';
import { ConfigError } from '../../src/config/section.js';
import { isQuireError } from '../../src/errors/quire-error.js';
import { fingerprintOf, parseIdempotencyKey } from '../../src/http/idempotency.js';

function plansFile(content: unknown): string {
  const file = path.join(os.tmpdir(), `quire-plans-unit-${process.pid}-${Math.random()}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('plans configuration', () => {
  it('has the contract’s defaults', () => {
    const { plans } = loadConfig({});
    expect(plans.free).toMatchObject({
      requestsPerWindow: 60,
      windowSeconds: 60,
      maxFileBytes: 25 * 2 ** 20,
    });
    expect(plans.pro).toMatchObject({ requestsPerWindow: 600, filesPerJob: 50, concurrentJobs: 10 });
    expect(plans.business).toMatchObject({ concurrentJobs: 50, resultRetentionMs: 72 * 3_600_000 });
  });

  it('merges the file over the defaults, then the variables over the file', () => {
    const file = plansFile({
      free: { max_file_bytes: 1000 },
      team: {
        requests_per_window: 5,
        window_seconds: 2,
        max_file_bytes: 10,
        files_per_job: 1,
        concurrent_jobs: 1,
        result_retention_ms: 60_000,
        max_pages: 3,
        max_output_bytes: 1_000,
        max_fan_out: 2,
        max_work_bytes: 5_000,
        max_engine_ms: 60_000,
        max_stored_bytes: 10_000,
        max_queued_jobs: 4,
        jobs_per_window: 8,
      },
    });
    const { plans } = loadConfig({ QUIRE_PLANS_FILE: file, QUIRE_PLAN_TEAM_MAX_PAGES: '7' });
    expect(plans.free).toMatchObject({ maxFileBytes: 1000, requestsPerWindow: 60 });
    expect(plans.team).toMatchObject({ name: 'team', requestsPerWindow: 5, windowSeconds: 2, maxPages: 7 });
  });

  it('takes every field, the whole-job limits and quotas included, from QUIRE_PLAN_<PLAN>_<FIELD>', () => {
    const { plans } = loadConfig({
      QUIRE_PLAN_FREE_MAX_OUTPUT_BYTES: '1001',
      QUIRE_PLAN_FREE_MAX_FAN_OUT: '1002',
      QUIRE_PLAN_FREE_MAX_WORK_BYTES: '1003',
      QUIRE_PLAN_FREE_MAX_ENGINE_MS: '1004',
      QUIRE_PLAN_FREE_MAX_STORED_BYTES: '1005',
      QUIRE_PLAN_FREE_MAX_QUEUED_JOBS: '1006',
      QUIRE_PLAN_FREE_JOBS_PER_WINDOW: '1007',
    });
    expect(plans.free).toMatchObject({
      maxOutputBytes: 1001,
      maxFanOut: 1002,
      maxWorkBytes: 1003,
      maxEngineMs: 1004,
      maxStoredBytes: 1005,
      maxQueuedJobs: 1006,
      jobsPerWindow: 1007,
    });
    expect(plans.pro?.maxFanOut).toBe(2_000);
  });

  it('gives a new plan without the whole-job limits and quotas those of the free plan', () => {
    const file = plansFile({
      older: {
        requests_per_window: 5,
        window_seconds: 2,
        max_file_bytes: 10,
        files_per_job: 1,
        concurrent_jobs: 1,
        result_retention_ms: 60_000,
        max_pages: 3,
      },
    });
    const { plans } = loadConfig({ QUIRE_PLANS_FILE: file });
    expect(plans.older).toMatchObject({
      maxPages: 3,
      maxFanOut: 200,
      maxStoredBytes: 2 ** 30,
      jobsPerWindow: 100,
    });
  });

  it.each([
    [{ QUIRE_PLANS_FILE: '/nonexistent/plans.json' }, /QUIRE_PLANS_FILE/],
    [{ QUIRE_PLANS_FILE: plansFile('not json') }, /QUIRE_PLANS_FILE/],
    [{ QUIRE_PLANS_FILE: plansFile({ free: { speed: 1 } }) }, /unknown field "speed"/],
    [{ QUIRE_PLANS_FILE: plansFile({ gold: { max_pages: 3 } }) }, /plan "gold": missing/],
    [{ QUIRE_PLANS_FILE: plansFile({ free: { max_pages: 0 } }) }, /max_pages must be an integer/],
    [{ QUIRE_PLAN_GOLD_MAX_PAGES: '3' }, /no plan "gold"/],
    [{ QUIRE_PLAN_FREE_SPEED: '3' }, /QUIRE_PLAN_FREE_SPEED/],
    [{ QUIRE_PLAN_FREE_MAX_PAGES: 'many' }, /QUIRE_PLAN_FREE_MAX_PAGES/],
    [{ QUIRE_DEFAULT_PLAN: 'gold' }, /QUIRE_DEFAULT_PLAN/],
  ])('refuses %o at start', (env, message) => {
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrow(ConfigError);
    expect(() => loadConfig(env as NodeJS.ProcessEnv)).toThrow(message);
  });

  it('caps every plan by the server-wide settings and falls back to free for unknown plans', () => {
    const config = loadConfig({
      QUIRE_UPLOAD_MAX_FILE_BYTES: '1000000',
      QUIRE_RESULT_RETENTION_MS: '7200000',
    });
    expect(accountLimits(config, 'business')).toMatchObject({
      maxFileBytes: 1_000_000,
      resultRetentionMs: 7_200_000,
    });
    expect(accountLimits(config, 'free')).toMatchObject({ maxFiles: 10, resultRetentionMs: 3_600_000 });
    expect(accountLimits(config, 'retired').plan.name).toBe('free');
  });
});

describe('Idempotency-Key header', () => {
  it.each([
    ['order-17', 'order-17'],
    ['  padded  ', 'padded'],
    ['"quoted key"', 'quoted key'],
    ['"with \\"escapes\\""', 'with "escapes"'],
    ['a b c', 'a b c'],
    ['x'.repeat(255), 'x'.repeat(255)],
  ])('accepts %j as %j', (header, key) => {
    expect(parseIdempotencyKey(header)).toBe(key);
  });

  it.each([
    [''],
    ['x'.repeat(256)],
    ['caf\u00e9'],
    ['tab\there'],
    ['"open'],
    ['"ok";p=1'],
    ['""'],
    [['a', 'b']],
  ])('refuses %j with invalid_idempotency_key', (header) => {
    try {
      parseIdempotencyKey(header as string | string[]);
      expect.unreachable();
    } catch (error) {
      expect(isQuireError(error) && error.code).toBe('invalid_idempotency_key');
    }
  });

  it('is absent when the header is', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it('fingerprints ignore key order but not values', () => {
    expect(fingerprintOf({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(
      fingerprintOf({ b: [1, { d: 3, c: 2 }], a: 1 }),
    );
    expect(fingerprintOf({ a: 1 })).not.toBe(fingerprintOf({ a: 2 }));
    expect(fingerprintOf({ files: ['x', 'y'] })).not.toBe(fingerprintOf({ files: ['y', 'x'] }));
  });
});
