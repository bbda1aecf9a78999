// The database conformance suite: every Database implementation (SQLite now, PostgreSQL later) runs
// it unchanged. This file covers records, listing, cancel/delete and migrations; the worker
// protocol and the retention queues live in their own suites, included from here.
import { describe, expect, test } from 'vitest';
import { isQuireError } from '../../src/errors/quire-error.js';
import { openDatabase } from '../../src/store/open.js';
import { describeAccountConformance } from './account-store.suite.js';
import { describeFairClaimConformance } from './fair-claim.suite.js';
import { describeIdempotencyConformance } from './idempotency.suite.js';
import { describeLeaseConformance } from './job-lease.suite.js';
import { describeQuotaConformance } from './job-quotas.suite.js';
import { describeRetentionConformance } from './job-retention.suite.js';
import { describeRecipeConformance } from './recipe-store.suite.js';
import { describeStepSecretsConformance } from './step-secrets.suite.js';
import {
  ALICE,
  BOB,
  LEASE_MS,
  newJob,
  type OpenDatabase,
  type StoreConformanceOptions,
  scrubbedOptions,
  secretJob,
  T0,
  useDatabase,
} from './support/job-fixtures.js';
import { runStoreChildren } from './support/spawn-store-child.js';
import { describeUploadConformance } from './upload-store.suite.js';
import { describeWebhookOutboxConformance } from './webhook-outbox.suite.js';
import { describeWorkflowsIoConformance } from './workflows-io.suite.js';

export type { StoreConformanceOptions } from './support/job-fixtures.js';

/** `open` must return a fresh, empty, unmigrated database on every call. */
export function describeJobStoreConformance(
  name: string,
  open: OpenDatabase,
  options: StoreConformanceOptions = {},
): void {
  describe(`job store conformance: ${name}`, () => {
    describeRecordConformance(open);
    describeLeaseConformance(open, options);
    describeRetentionConformance(open);
    describeQuotaConformance(open, options);
    describeAccountConformance(open);
    describeFairClaimConformance(open);
    describeIdempotencyConformance(open);
    describeWebhookOutboxConformance(open);
    describeWorkflowsIoConformance(open);
    describeStepSecretsConformance(open);
    describeUploadConformance(open);
    describeRecipeConformance(open);
    describeMigrationConformance(open, options);
  });
}

function describeRecordConformance(open: OpenDatabase): void {
  const db = useDatabase(open);

  describe('create and get', () => {
    test('create returns a queued job that reads back identically', async () => {
      const job = await db().jobs.create(secretJob({ metadata: { a: '1', b: 'two' } }));
      expect(job).toMatchObject({
        status: 'queued',
        progress: 0,
        attempts: 0,
        stalls: 0,
        result: null,
        error: null,
      });
      expect(job).toMatchObject({
        startedAt: null,
        completedAt: null,
        expiresAt: null,
        resultDeletedAt: null,
      });
      // Secrets stay usable while the job is active: the worker needs them.
      expect(job.options).toEqual({ password: 'hunter2', owner_password: 'sesame', keep: true });
      expect(await db().jobs.get(ALICE, job.id)).toEqual(job);
    });

    test("another account's or an unknown job is undefined", async () => {
      const job = await db().jobs.create(newJob());
      expect(await db().jobs.get(BOB, job.id)).toBeUndefined();
      expect(await db().jobs.get(ALICE, 'job_missing')).toBeUndefined();
    });
  });

  describe('steps', () => {
    test('the steps after the first read back in order; a one-tool job has none', async () => {
      const nextSteps = [
        { tool: 'ocr', options: { languages: ['eng'] } },
        { tool: 'compress', options: { level: 'high' } },
      ];
      const job = await db().jobs.create(newJob({ nextSteps }));
      expect(job).toMatchObject({ nextSteps, currentStep: null });
      expect(await db().jobs.get(ALICE, job.id)).toEqual(job);
      expect((await db().jobs.create(newJob())).nextSteps).toEqual([]);
    });

    test('only the lease holder records the step it runs', async () => {
      const job = await db().jobs.create(newJob({ nextSteps: [{ tool: 'compress', options: {} }] }));
      const { leaseToken } = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      expect(await db().jobs.setStep(job.id, 'not-the-token', 1)).toBe(false);
      expect(await db().jobs.setStep(job.id, leaseToken, 1)).toBe(true);
      expect(await db().jobs.get(ALICE, job.id)).toMatchObject({ currentStep: 1 });
      await db().jobs.cancel(ALICE, job.id, T0 + 5);
      expect(await db().jobs.setStep(job.id, leaseToken, 0)).toBe(false);
    });

    test('a worker lacking a later step’s tool leaves the job for one that has them all', async () => {
      const job = await db().jobs.create(
        newJob({ tool: 'compress', nextSteps: [{ tool: 'ocr', options: { note: '"tool":"pdfa"' } }] }),
      );
      const limits = { concurrentJobsByPlan: {}, defaultConcurrentJobs: 10 };
      const noOcr = { ...limits, tools: ['compress', 'pdfa'], unavailableTools: ['ocr'] };
      expect(await db().jobs.claimNext('w1', LEASE_MS, T0, noOcr)).toBeUndefined();
      // A quoted tool name inside an option value is not a step.
      const noPdfa = { ...limits, tools: ['compress', 'ocr'], unavailableTools: ['pdfa'] };
      expect((await db().jobs.claimNext('w2', LEASE_MS, T0 + 1, noPdfa))?.job.id).toBe(job.id);
    });
  });

  describe('cancel', () => {
    test('a queued job is canceled at once and its secrets scrubbed', async () => {
      const job = await db().jobs.create(secretJob());
      const outcome = await db().jobs.cancel(ALICE, job.id, T0 + 5);
      expect(outcome).toMatchObject({ outcome: 'canceled', wasProcessing: false });
      const stored = await db().jobs.get(ALICE, job.id);
      expect(stored).toMatchObject({ status: 'canceled', completedAt: T0 + 5, options: scrubbedOptions });
      expect(outcome.outcome === 'canceled' && outcome.job).toEqual(stored);
    });

    test('a processing job is canceled and its worker loses the lease', async () => {
      const job = await db().jobs.create(newJob());
      const { leaseToken } = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      expect(await db().jobs.cancel(ALICE, job.id, T0 + 5)).toMatchObject({
        outcome: 'canceled',
        wasProcessing: true,
      });
      expect(await db().jobs.heldLeases([{ id: job.id, token: leaseToken }])).toEqual(new Set());
      expect(await db().jobs.renewLease(job.id, leaseToken, LEASE_MS)).toBe(false);
      expect(await db().jobs.setProgress(job.id, leaseToken, 50)).toBe(false);
      expect(await db().jobs.complete(job.id, leaseToken, { ...emptyResult }, T0)).toBeUndefined();
      expect(await db().jobs.get(ALICE, job.id)).toMatchObject({
        status: 'canceled',
        result: null,
        progress: 0,
      });
    });

    test('a terminal job is reported as terminal and left unchanged', async () => {
      const job = await db().jobs.create(newJob());
      await db().jobs.cancel(ALICE, job.id, T0 + 5);
      const again = await db().jobs.cancel(ALICE, job.id, T0 + 9);
      expect(again).toMatchObject({ outcome: 'terminal', job: { status: 'canceled', completedAt: T0 + 5 } });
    });

    test("unknown, another account's and deleted jobs are not_found", async () => {
      const job = await db().jobs.create(newJob());
      const deleted = await db().jobs.create(newJob());
      await db().jobs.delete(ALICE, deleted.id);
      expect(await db().jobs.cancel(ALICE, 'job_missing')).toEqual({ outcome: 'not_found' });
      expect(await db().jobs.cancel(BOB, job.id)).toEqual({ outcome: 'not_found' });
      expect(await db().jobs.cancel(ALICE, deleted.id)).toEqual({ outcome: 'not_found' });
      expect(await db().jobs.get(ALICE, job.id)).toMatchObject({ status: 'queued' });
    });
  });

  describe('delete', () => {
    test('hides the job and returns it, canceling it if active', async () => {
      const job = await db().jobs.create(secretJob());
      const { leaseToken } = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      const deleted = await db().jobs.delete(ALICE, job.id, T0 + 7);
      expect(deleted).toMatchObject({
        id: job.id,
        status: 'canceled',
        completedAt: T0 + 7,
        options: scrubbedOptions,
      });
      expect(deleted?.inputs).toEqual(job.inputs);
      expect(await db().jobs.get(ALICE, job.id)).toBeUndefined();
      expect(await db().jobs.list(ALICE, { limit: 10 })).toEqual({ jobs: [], hasMore: false });
      expect(await db().jobs.heldLeases([{ id: job.id, token: leaseToken }])).toEqual(new Set());
      expect(await db().jobs.delete(ALICE, job.id)).toBeUndefined();
    });

    test('a terminal job keeps its outcome', async () => {
      const job = await db().jobs.create(newJob());
      const { leaseToken } = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      await db().jobs.fail(
        job.id,
        leaseToken,
        { code: 'pdf_corrupt', message: 'x', retryable: false },
        T0 + 1,
      );
      expect(await db().jobs.delete(ALICE, job.id, T0 + 9)).toMatchObject({
        status: 'failed',
        completedAt: T0 + 1,
      });
    });

    test("another account's job is neither returned nor deleted", async () => {
      const job = await db().jobs.create(newJob());
      expect(await db().jobs.delete(BOB, job.id)).toBeUndefined();
      expect(await db().jobs.get(ALICE, job.id)).toMatchObject({ status: 'queued' });
    });
  });

  describe('list', () => {
    test('pages newest first with filters, cursors and hasMore', async () => {
      const made = [];
      for (let i = 0; i < 7; i++) {
        const tool = i % 2 === 0 ? 'compress' : 'merge';
        made.push(await db().jobs.create(newJob({ tool, createdAt: T0 + Math.floor(i / 2) })));
      }
      await db().jobs.create(newJob({ accountId: BOB, createdAt: T0 + 100 }));
      const hidden = await db().jobs.create(newJob({ createdAt: T0 + 50 }));
      await db().jobs.delete(ALICE, hidden.id);
      await db().jobs.cancel(ALICE, made[6]!.id);

      const newestFirst = [...made].reverse().map((j) => j.id);
      const page1 = await db().jobs.list(ALICE, { limit: 3 });
      expect(page1.jobs.map((j) => j.id)).toEqual(newestFirst.slice(0, 3));
      expect(page1.hasMore).toBe(true);
      const page2 = await db().jobs.list(ALICE, { limit: 3, startingAfter: page1.jobs.at(-1)!.id });
      expect(page2.jobs.map((j) => j.id)).toEqual(newestFirst.slice(3, 6));
      expect(page2.hasMore).toBe(true);
      const page3 = await db().jobs.list(ALICE, { limit: 3, startingAfter: page2.jobs.at(-1)!.id });
      expect(page3).toMatchObject({ jobs: [{ id: newestFirst[6] }], hasMore: false });

      const exact = await db().jobs.list(ALICE, { limit: 7 });
      expect(exact.hasMore).toBe(false);
      const merges = made.filter((j) => j.tool === 'merge').reverse();
      const tool1 = await db().jobs.list(ALICE, { tool: 'merge', limit: 2 });
      expect(tool1).toMatchObject({ jobs: merges.slice(0, 2).map((j) => ({ id: j.id })), hasMore: true });
      const tool2 = await db().jobs.list(ALICE, {
        tool: 'merge',
        limit: 2,
        startingAfter: tool1.jobs[1]!.id,
      });
      expect(tool2).toMatchObject({ jobs: merges.slice(2).map((j) => ({ id: j.id })), hasMore: false });
      const queuedCompress = await db().jobs.list(ALICE, { status: 'queued', tool: 'compress', limit: 10 });
      expect(queuedCompress.jobs.map((j) => j.id)).toEqual([made[4]!.id, made[2]!.id, made[0]!.id]);
      const canceled = await db().jobs.list(ALICE, { status: 'canceled', limit: 10 });
      expect(canceled.jobs.map((j) => j.id)).toEqual([made[6]!.id]);
    });

    test('a deleted job still works as the cursor it was', async () => {
      const older = await db().jobs.create(newJob({ createdAt: T0 }));
      const cursor = await db().jobs.create(newJob({ createdAt: T0 + 1 }));
      await db().jobs.delete(ALICE, cursor.id);
      const page = await db().jobs.list(ALICE, { limit: 5, startingAfter: cursor.id });
      expect(page.jobs.map((j) => j.id)).toEqual([older.id]);
    });

    test("an unknown or another account's cursor is invalid_cursor", async () => {
      const bobs = await db().jobs.create(newJob({ accountId: BOB }));
      for (const startingAfter of ['job_missing', bobs.id]) {
        const error = await db()
          .jobs.list(ALICE, { limit: 5, startingAfter })
          .catch((e: unknown) => e);
        expect(isQuireError(error) && error.code).toBe('invalid_cursor');
      }
    });
  });
}

const emptyResult = {
  name: 'x.pdf',
  size: 1,
  contentType: 'application/pdf',
  blobKey: 'jobs/x/result',
  facts: {},
};

function describeMigrationConformance(open: OpenDatabase, options: StoreConformanceOptions): void {
  describe('migrations', () => {
    test('running them twice is harmless', async () => {
      const db = await open();
      try {
        await db.migrate();
        await db.migrate();
        await db.ping();
        await db.accounts.createAccount({ id: ALICE, name: 'A', plan: 'free', createdAt: T0 });
        expect((await db.jobs.create(newJob())).status).toBe('queued');
      } finally {
        await db.close();
      }
    });

    test.skipIf(!options.freshUrl)('processes starting together migrate once and all succeed', async () => {
      const url = await options.freshUrl!();
      const outcomes = await runStoreChildren('migrate', url, ['m1', 'm2']);
      expect(outcomes).toEqual([{ migrated: true }, { migrated: true }]);
      const db = await openDatabase(url);
      try {
        await db.migrate();
        await db.accounts.createAccount({ id: ALICE, name: 'A', plan: 'free', createdAt: T0 });
        expect((await db.jobs.create(newJob())).status).toBe('queued');
      } finally {
        await db.close();
      }
    });
  });
}
