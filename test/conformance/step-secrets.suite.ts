// A later step's secret options (model/step-secrets.ts) are kept under their pointers in the job's
// options and erased by the same scrub as the first step's: on completion, failure and cancel, on
// every store implementation.
import { describe, expect, test } from 'vitest';
import { jobView } from '../../src/model/job-view.js';
import { runnableSteps, storedSteps } from '../../src/model/step-secrets.js';
import {
  ALICE,
  LEASE_MS,
  newJob,
  type OpenDatabase,
  result,
  T0,
  useDatabase,
} from './support/job-fixtures.js';

const SECRET = 'step-secret-4d1c';

/** rotate → protect: protect's user password is a secret of step 1. */
function chainedJob() {
  const stored = storedSteps(
    { options: { angle: 90 }, secretOptions: ['password'] },
    [{ tool: 'protect', options: { user_password: SECRET, encryption: 'aes-128' } }],
    (tool) => (tool === 'protect' ? ['user_password', 'owner_password', 'password'] : []),
  );
  return newJob({ tool: 'rotate', ...stored });
}

export function describeStepSecretsConformance(open: OpenDatabase): void {
  const db = useDatabase(open);

  describe('later steps’ secrets', () => {
    test('are stored apart from the step, run with it, and never shown', async () => {
      const job = await db().jobs.create(chainedJob());
      expect(job.nextSteps).toEqual([
        { tool: 'protect', options: { user_password: '[redacted]', encryption: 'aes-128' } },
      ]);
      const { job: claimed } = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      expect(runnableSteps(claimed)[1]!.options).toEqual({ user_password: SECRET, encryption: 'aes-128' });
      expect(runnableSteps(claimed)[0]!.options).toEqual({ angle: 90 });
      expect(JSON.stringify(jobView(claimed))).not.toContain(SECRET);
    });

    test('are scrubbed when the job completes, fails or is canceled', async () => {
      const done = await db().jobs.create(chainedJob());
      const claim = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      await db().jobs.complete(done.id, claim.leaseToken, result(done.id), T0 + 1, T0);
      const failed = await db().jobs.create(chainedJob());
      const second = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      await db().jobs.fail(
        failed.id,
        second.leaseToken,
        { code: 'timeout', message: 'x', retryable: false },
        T0 + 1,
      );
      const canceled = await db().jobs.create(chainedJob());
      await db().jobs.cancel(ALICE, canceled.id, T0 + 1);
      for (const job of [done, failed, canceled]) {
        const stored = (await db().jobs.get(ALICE, job.id))!;
        expect(JSON.stringify(stored)).not.toContain(SECRET);
        expect(runnableSteps(stored)[1]!.options.user_password).toBe('[redacted]');
      }
    });
  });
}
