// Conformance of the workflows I/O store operations (docs/api.md §2, §6, §11): batches and their jobs,
// job transfers whose secret half goes with the inputs, inputs recorded under the lease, and the
// account's job-callback endpoint carrying per-job webhook_url deliveries through the outbox.
import { describe, expect, test } from 'vitest';
import type { WebhookEndpoint } from '../../src/model/webhook.js';
import {
  ALICE,
  BOB,
  endpoint,
  LEASE_MS,
  newJob,
  type OpenDatabase,
  result,
  T0,
  useDatabase,
} from './support/job-fixtures.js';

const transfers = {
  imports: [{ input: 0, host: 'files.example.com' }],
  export: { host: 'bucket.s3.example.com', keepResult: true },
  webhookHost: 'hooks.example.com',
};
const secrets = {
  imports: [
    { input: 0, url: 'https://files.example.com/a.pdf?sig=1', headers: { Authorization: 'Bearer x' } },
  ],
  export: { url: 'https://bucket.s3.example.com/out.pdf?X-Amz-Signature=2', headers: {} },
};
const WEBHOOK_URL = 'https://hooks.example.com/job?token=3';

function callbackEndpoint(accountId: string, id: string): WebhookEndpoint {
  return endpoint({ id, accountId, url: '', events: [], secretEncrypted: `v1.${id}` });
}

export function describeWorkflowsIoConformance(open: OpenDatabase): void {
  const db = useDatabase(open);

  describe('batches', () => {
    test('a batch is account-scoped and lists its own jobs in creation order, deleted ones dropped', async () => {
      const batch = { id: 'bat_1', accountId: ALICE, tool: 'compress', jobCount: 3, createdAt: T0 };
      await db().batches.create(batch);
      const jobs = [];
      for (let i = 0; i < 3; i++)
        jobs.push(await db().jobs.create(newJob({ batchId: 'bat_1', createdAt: T0 + i })));
      await db().jobs.create(newJob());
      await db().jobs.delete(ALICE, jobs[1]!.id, T0 + 10);
      expect(await db().batches.get(ALICE, 'bat_1')).toEqual(batch);
      expect(await db().batches.get(BOB, 'bat_1')).toBeUndefined();
      const listed = await db().batches.listJobs(ALICE, 'bat_1');
      expect(listed.map((j) => j.id)).toEqual([jobs[0]!.id, jobs[2]!.id]);
      expect(listed.every((j) => j.batchId === 'bat_1')).toBe(true);
      expect(await db().batches.listJobs(BOB, 'bat_1')).toEqual([]);
    });
  });

  describe('transfers', () => {
    test('transfers are kept; their secrets and the webhook URL go with the inputs', async () => {
      const job = await db().jobs.create(
        newJob({ transfers, transferSecrets: secrets, webhookUrl: WEBHOOK_URL }),
      );
      expect(job).toMatchObject({
        transfers,
        transferSecrets: secrets,
        webhookUrl: WEBHOOK_URL,
        batchId: null,
      });
      const plain = await db().jobs.create(newJob());
      expect(plain).toMatchObject({
        transfers: { imports: [], export: null, webhookHost: null },
        transferSecrets: null,
        webhookUrl: null,
      });
      await db().jobs.cancel(ALICE, job.id, T0 + 1);
      await db().jobs.markInputsDeleted(job.id);
      expect(await db().jobs.get(ALICE, job.id)).toMatchObject({
        transfers,
        transferSecrets: null,
        webhookUrl: null,
      });
    });

    test('recordInputs writes while the lease holds, and never after it is lost', async () => {
      const job = await db().jobs.create(newJob());
      const claim = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      const fetched = [
        { ...job.inputs[0]!, size: 99, contentType: 'application/pdf', source: 'url' as const },
      ];
      expect(await db().jobs.recordInputs(job.id, claim.leaseToken, fetched)).toBe(true);
      expect((await db().jobs.get(ALICE, job.id))!.inputs).toEqual(fetched);
      expect(await db().jobs.recordInputs(job.id, 'not-the-token', [])).toBe(false);
      await db().jobs.cancel(ALICE, job.id, T0 + 1);
      expect(await db().jobs.recordInputs(job.id, claim.leaseToken, [])).toBe(false);
      expect((await db().jobs.get(ALICE, job.id))!.inputs).toEqual(fetched);
    });
  });

  describe('job-callback endpoint', () => {
    test('one per account, whoever asks first; hidden from the endpoint operations and the cap', async () => {
      const [a, b] = await Promise.all([
        db().webhooks.ensureJobCallbackEndpoint(callbackEndpoint(ALICE, 'whe_cb_a')),
        db().webhooks.ensureJobCallbackEndpoint(callbackEndpoint(ALICE, 'whe_cb_b')),
      ]);
      expect(a.id).toBe(b.id);
      expect((await db().webhooks.getJobCallbackEndpoint(ALICE))?.id).toBe(a.id);
      expect(await db().webhooks.getJobCallbackEndpoint(BOB)).toBeUndefined();
      expect(await db().webhooks.listEndpoints(ALICE)).toEqual([]);
      expect(await db().webhooks.getEndpoint(ALICE, a.id)).toBeUndefined();
      expect(await db().webhooks.deleteEndpoint(ALICE, a.id)).toBe(false);
      await db().webhooks.createEndpoint(
        { ...callbackEndpoint(ALICE, 'whe_real'), url: 'https://x.example', events: ['*'] },
        1,
      );
    });

    test('a job’s end goes to its webhook_url, signed by the callback endpoint; its start does not', async () => {
      const cb = await db().webhooks.ensureJobCallbackEndpoint(callbackEndpoint(ALICE, 'whe_cb'));
      const job = await db().jobs.create(newJob({ webhookUrl: WEBHOOK_URL, transfers }));
      const claim = (await db().jobs.claimNext('w1', LEASE_MS, T0))!;
      expect(await db().webhooks.claimDelivery(LEASE_MS, T0 + 1)).toBeUndefined();
      await db().jobs.complete(job.id, claim.leaseToken, result(job.id), T0 + 9e6, T0 + 2);
      const delivery = (await db().webhooks.claimDelivery(LEASE_MS, T0 + 3))!;
      expect(delivery.url).toBe(WEBHOOK_URL);
      expect(delivery.secretEncrypted).toBe(cb.secretEncrypted);
      expect(delivery.message).toMatchObject({
        jobId: job.id,
        eventType: 'job.succeeded',
        endpointId: cb.id,
      });
      expect(JSON.parse(delivery.body.toString('utf8')).data).toMatchObject({
        id: job.id,
        status: 'succeeded',
      });
      expect(delivery.body.toString('utf8')).not.toContain('token=3');
      // Failing for longer than any endpoint may does not disable the account's callbacks.
      const failed = await db().webhooks.recordAttempt(delivery.message.id, delivery.leaseToken, {
        attempt: {
          attemptedAt: T0 + 4,
          statusCode: 500,
          latencyMs: 1,
          errorClass: 'http_status',
          responseExcerpt: null,
        },
        next: { kind: 'retry', at: T0 + 5 },
        gone: true,
        disableIfFailingSince: T0 + 10,
      });
      expect(failed).toMatchObject({ recorded: true, disabled: null });
      expect((await db().webhooks.getJobCallbackEndpoint(ALICE))?.status).toBe('enabled');
    });

    test('a canceled or failed job’s end is sent too; a job without webhook_url sends nothing', async () => {
      await db().webhooks.ensureJobCallbackEndpoint(callbackEndpoint(ALICE, 'whe_cb'));
      const canceled = await db().jobs.create(newJob({ webhookUrl: WEBHOOK_URL }));
      await db().jobs.cancel(ALICE, canceled.id, T0 + 1);
      const failing = await db().jobs.create(newJob({ webhookUrl: `${WEBHOOK_URL}&b` }));
      await db().jobs.create(newJob()); // no webhook_url: its failure sends nothing
      for (let i = 0; i < 2; i++) {
        const claim = (await db().jobs.claimNext('w1', LEASE_MS, T0 + 2))!;
        const error = { code: 'pdf_corrupt', message: 'x', retryable: false };
        await db().jobs.fail(claim.job.id, claim.leaseToken, error, T0 + 3);
      }
      const sent = [];
      for (let i = 0; i < 3; i++) {
        const d = await db().webhooks.claimDelivery(LEASE_MS, T0 + 4);
        if (d) sent.push([d.message.jobId, d.message.eventType, d.url]);
      }
      expect(sent.sort()).toEqual(
        [
          [canceled.id, 'job.canceled', WEBHOOK_URL],
          [failing.id, 'job.failed', `${WEBHOOK_URL}&b`],
        ].sort(),
      );
    });
  });
}
