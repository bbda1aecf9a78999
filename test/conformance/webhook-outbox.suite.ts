// Conformance of the job-event outbox and the webhook delivery queue: every job state change writes
// exactly its event in the same transaction (a refused conditional write writes none), events fan out
// to subscribed enabled endpoints, and deliveries follow the lease protocol jobs do.
import { describe, expect, test } from 'vitest';
import type { Database } from '../../src/store/job-stores.js';
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

const types = async (db: Database, jobId: string) =>
  (await db.webhooks.listJobEvents(jobId)).map((e) => e.type);

export function describeWebhookOutboxConformance(open: OpenDatabase): void {
  const db = useDatabase(open);

  describe('endpoints', () => {
    test('an account past its endpoint cap is refused, disabled ones counted, others unaffected', async () => {
      const first = await db().webhooks.createEndpoint(endpoint(), 2);
      await db().webhooks.updateEndpoint(ALICE, first.id, { status: 'disabled' }, T0);
      await db().webhooks.createEndpoint(endpoint(), 2);
      await expect(db().webhooks.createEndpoint(endpoint(), 2)).rejects.toMatchObject({
        code: 'webhook_endpoint_limit_exceeded',
      });
      await db().webhooks.createEndpoint(endpoint({ accountId: BOB }), 2);
      expect(await db().webhooks.listEndpoints(ALICE)).toHaveLength(2);
    });

    test('registrations at the same moment never pass the cap together', async () => {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, () => db().webhooks.createEndpoint(endpoint(), 3)),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
      expect(await db().webhooks.listEndpoints(ALICE)).toHaveLength(3);
    });
  });

  describe('job event outbox', () => {
    /** An endpoint of ALICE's that receives every event, so that each transition writes one. */
    const subscribeAll = () => db().webhooks.createEndpoint(endpoint());

    test('create, claim and complete each write exactly their event with the job object', async () => {
      await subscribeAll();
      const job = await db().jobs.create(newJob());
      const claim = await db().jobs.claimNext('w1', LEASE_MS, T0 + 1);
      expect(
        await db().jobs.complete(job.id, claim!.leaseToken, result(job.id), T0 + 9e6, T0 + 2),
      ).toMatchObject({ status: 'succeeded' });
      const events = await db().webhooks.listJobEvents(job.id);
      expect(events.map((e) => [e.type, e.createdAt])).toEqual([
        ['job.created', T0],
        ['job.processing', T0 + 1],
        ['job.succeeded', T0 + 2],
      ]);
      const last = JSON.parse(events[2]!.body.toString('utf8'));
      expect(last).toMatchObject({ type: 'job.succeeded', timestamp: '2027-01-15T08:00:00Z' });
      expect(last.data).toMatchObject({ id: job.id, object: 'job', status: 'succeeded', progress: 100 });
      const processing = JSON.parse(events[1]!.body.toString('utf8'));
      expect(processing).toMatchObject({ type: 'job.processing', timestamp: '2027-01-15T08:00:00Z' });
      expect(processing.data).toMatchObject({ status: 'processing', attempts: 1, progress: 0 });
      expect(processing.data.started_at).toBe('2027-01-15T08:00:00Z');
    });

    test('an event shows the job as it was then, secrets redacted, whenever it is read', async () => {
      await subscribeAll();
      const job = await db().jobs.create(
        newJob({ options: { password: 's3cret', level: 'high' }, secretOptions: ['password'] }),
      );
      const claim = await db().jobs.claimNext('w1', LEASE_MS, T0 + 1);
      await db().jobs.setProgress(job.id, claim!.leaseToken, 40);
      await db().jobs.complete(job.id, claim!.leaseToken, result(job.id), T0 + 9e6, T0 + 2);
      const events = await db().webhooks.listJobEvents(job.id);
      for (const event of events) expect(event.body.toString('utf8')).not.toContain('s3cret');
      const views = events.map((e) => JSON.parse(e.body.toString('utf8')).data);
      expect(views.map((v) => [v.status, v.progress])).toEqual([
        ['queued', 0],
        ['processing', 0],
        ['succeeded', 100],
      ]);
      // Key order as submitted, the secret replaced in place.
      for (const view of views) expect(view.options).toEqual({ password: '[redacted]', level: 'high' });
      expect(Object.keys(views[1].options)).toEqual(['password', 'level']);
      expect(views[2].result).toMatchObject({ size: result(job.id).size });
    });

    test('writes no event when no enabled endpoint of the account subscribes to it', async () => {
      await db().webhooks.createEndpoint(endpoint({ accountId: BOB }));
      await db().webhooks.createEndpoint(endpoint({ events: ['job.succeeded'] }));
      const job = await db().jobs.create(newJob());
      const claim = await db().jobs.claimNext('w1', LEASE_MS, T0);
      await db().jobs.complete(job.id, claim!.leaseToken, result(job.id), T0 + 9e6, T0 + 1);
      expect(await types(db(), job.id)).toEqual(['job.succeeded']);
    });

    test('fail, cancel and delete of an active job write job.failed / job.canceled', async () => {
      await subscribeAll();
      const failed = await db().jobs.create(newJob());
      const claim = await db().jobs.claimNext('w1', LEASE_MS, T0);
      await db().jobs.fail(failed.id, claim!.leaseToken, {
        code: 'pdf_corrupt',
        message: 'x',
        retryable: false,
      });
      const canceled = await db().jobs.create(newJob());
      await db().jobs.cancel(ALICE, canceled.id, T0);
      const deleted = await db().jobs.create(newJob());
      await db().jobs.delete(ALICE, deleted.id, T0);
      expect(await types(db(), failed.id)).toEqual(['job.created', 'job.processing', 'job.failed']);
      expect(await types(db(), canceled.id)).toEqual(['job.created', 'job.canceled']);
      expect(await types(db(), deleted.id)).toEqual(['job.created', 'job.canceled']);
    });

    test('refused conditional writes write no event', async () => {
      await subscribeAll();
      const job = await db().jobs.create(newJob());
      const claim = await db().jobs.claimNext('w1', LEASE_MS, T0);
      await db().jobs.cancel(ALICE, job.id, T0 + 1);
      // The worker's lease is gone: its terminal writes are refused and must leave no trace.
      expect(await db().jobs.complete(job.id, claim!.leaseToken, result(job.id), T0 + 9e6)).toBeUndefined();
      expect(
        await db().jobs.fail(job.id, claim!.leaseToken, { code: 'timeout', message: 'x', retryable: false }),
      ).toBeUndefined();
      expect((await db().jobs.cancel(ALICE, job.id, T0 + 2)).outcome).toBe('terminal');
      await db().jobs.delete(ALICE, job.id, T0 + 3);
      expect(await db().jobs.claimNext('w2', LEASE_MS, T0 + 4)).toBeUndefined();
      expect(await types(db(), job.id)).toEqual(['job.created', 'job.processing', 'job.canceled']);
    });

    test('onQueued hears of each committed transition or retry that queued messages, and of no other', async () => {
      const hook = await db().webhooks.createEndpoint(
        endpoint({ events: ['job.succeeded', 'job.canceled'] }),
      );
      let heard = 0;
      const off = db().webhooks.onQueued(() => heard++);
      const job = await db().jobs.create(newJob());
      const claim = await db().jobs.claimNext('w1', LEASE_MS, T0);
      expect(heard).toBe(0);
      await db().jobs.complete(job.id, claim!.leaseToken, result(job.id), T0 + 9e6, T0 + 1);
      expect(heard).toBe(1);
      const due = await db().webhooks.claimDelivery(LEASE_MS, T0 + 2);
      expect(due?.message.jobId).toBe(job.id);
      const other = await db().jobs.create(newJob());
      const lost = await db().jobs.claimNext('w1', LEASE_MS, T0 + 3);
      await db().jobs.cancel(ALICE, other.id, T0 + 4);
      expect(heard).toBe(2);
      expect(
        await db().jobs.complete(other.id, lost!.leaseToken, result(other.id), T0 + 9e6),
      ).toBeUndefined();
      expect(heard).toBe(2);
      await db().webhooks.retryMessage(ALICE, hook.id, due!.message.id, T0 + 5);
      expect(heard).toBe(3);
      off();
      await db().jobs.delete(ALICE, (await db().jobs.create(newJob())).id, T0 + 6);
      expect(heard).toBe(3);
    });

    test('the sweep writes job.failed for worker_lost and nothing for a requeue', async () => {
      await subscribeAll();
      const job = await db().jobs.create(newJob());
      await db().jobs.claimNext('w1', LEASE_MS, T0);
      expect((await db().jobs.sweepExpiredLeases(2, T0 + LEASE_MS + 1)).requeued).toEqual([job.id]);
      await db().jobs.claimNext('w2', LEASE_MS, T0 + LEASE_MS + 2);
      expect((await db().jobs.sweepExpiredLeases(2, T0 + 3 * LEASE_MS)).failed).toEqual([job.id]);
      expect(await types(db(), job.id)).toEqual([
        'job.created',
        'job.processing',
        'job.processing',
        'job.failed',
      ]);
    });

    test('fans out one message per subscribed, enabled endpoint of the same account', async () => {
      const all = await db().webhooks.createEndpoint(endpoint());
      const created = await db().webhooks.createEndpoint(endpoint({ events: ['job.created'] }));
      const off = await db().webhooks.createEndpoint(endpoint());
      await db().webhooks.updateEndpoint(ALICE, off.id, { status: 'disabled' }, T0);
      await db().webhooks.createEndpoint(endpoint({ accountId: BOB }));
      await db().jobs.create(newJob());
      await db().jobs.claimNext('w1', LEASE_MS, T0 + 1);
      const count = async (id: string) =>
        (await db().webhooks.listMessages(ALICE, id, { limit: 10 })).messages.map((m) => m.eventType);
      expect(await count(all.id)).toEqual(['job.processing', 'job.created']);
      expect(await count(created.id)).toEqual(['job.created']);
      expect(await count(off.id)).toEqual([]);
    });
  });

  describe('delivery queue', () => {
    const setUp = async () => {
      const target = await db().webhooks.createEndpoint(endpoint({ events: ['job.created'] }));
      const job = await db().jobs.create(newJob());
      return { target, job };
    };
    const attempt = (at: number) => ({
      attemptedAt: at,
      statusCode: 500,
      latencyMs: 12,
      errorClass: 'http_status',
      responseExcerpt: 'oops',
    });

    test('claims a due message under a lease with the stored body; nothing else is due meanwhile', async () => {
      const { job } = await setUp();
      const claim = await db().webhooks.claimDelivery(LEASE_MS, T0);
      expect(claim?.message).toMatchObject({ jobId: job.id, eventType: 'job.created', attempts: 1 });
      expect(claim?.body.equals((await db().webhooks.listJobEvents(job.id))[0]!.body)).toBe(true);
      expect(await db().webhooks.claimDelivery(LEASE_MS, T0 + 1)).toBeUndefined();
    });

    test('a claim’s event is sent as the job object at the claim, the same bytes on every attempt', async () => {
      await db().webhooks.createEndpoint(endpoint({ events: ['job.processing'] }));
      const job = await db().jobs.create(newJob());
      const claim = await db().jobs.claimNext('w1', LEASE_MS, T0);
      await db().jobs.complete(job.id, claim!.leaseToken, result(job.id), T0 + 9e6, T0 + 1);
      const first = await db().webhooks.claimDelivery(LEASE_MS, T0 + 2);
      const again = await db().webhooks.claimDelivery(LEASE_MS, T0 + 2 + LEASE_MS);
      expect(first?.message).toMatchObject({ jobId: job.id, eventType: 'job.processing' });
      expect(again?.message.id).toBe(first?.message.id);
      expect(again?.body.equals(first!.body)).toBe(true);
      expect(first?.body.equals((await db().webhooks.listJobEvents(job.id))[0]!.body)).toBe(true);
      expect(JSON.parse(first!.body.toString('utf8')).data).toMatchObject({
        status: 'processing',
        attempts: 1,
      });
    });

    test('an expired lease makes the message due again and refuses the old holder', async () => {
      await setUp();
      const first = await db().webhooks.claimDelivery(LEASE_MS, T0);
      const second = await db().webhooks.claimDelivery(LEASE_MS, T0 + LEASE_MS);
      expect(second?.message).toMatchObject({ id: first!.message.id, attempts: 2 });
      const next = { kind: 'succeeded' } as const;
      const record = { attempt: attempt(T0), next, gone: false, disableIfFailingSince: 0 };
      expect((await db().webhooks.recordAttempt(first!.message.id, first!.leaseToken, record)).recorded).toBe(
        false,
      );
      expect(
        (await db().webhooks.recordAttempt(first!.message.id, second!.leaseToken, record)).recorded,
      ).toBe(true);
    });

    test('a failed attempt is logged and rescheduled; 410 disables the endpoint', async () => {
      const { target } = await setUp();
      await db().jobs.create(newJob());
      const claim = await db().webhooks.claimDelivery(LEASE_MS, T0);
      const retry = { kind: 'retry', at: T0 + 5000 } as const;
      const record = { attempt: attempt(T0), next: retry, gone: false, disableIfFailingSince: 0 };
      expect(await db().webhooks.recordAttempt(claim!.message.id, claim!.leaseToken, record)).toMatchObject({
        recorded: true,
        disabled: null,
      });
      const page = await db().webhooks.listMessages(ALICE, target.id, { limit: 10 });
      const logged = page.messages.find((m) => m.id === claim!.message.id);
      expect(logged).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 5000, attempts: 1 });
      expect(logged?.attemptLog).toEqual([attempt(T0)]);
      expect((await db().webhooks.getEndpoint(ALICE, target.id))?.failingSince).toBe(T0);

      const again = await db().webhooks.claimDelivery(LEASE_MS, T0 + 5000);
      const gone = { attempt: { ...attempt(T0 + 5000), statusCode: 410 }, next: { kind: 'failed' as const } };
      const outcome = await db().webhooks.recordAttempt(again!.message.id, again!.leaseToken, {
        ...gone,
        gone: true,
        disableIfFailingSince: 0,
      });
      expect(outcome.disabled).toBe('gone');
      expect((await db().webhooks.getEndpoint(ALICE, target.id))?.status).toBe('disabled');
      // Everything still waiting for the disabled endpoint failed with it.
      const after = await db().webhooks.listMessages(ALICE, target.id, { limit: 10 });
      expect(after.messages.map((m) => m.status)).toEqual(['failed', 'failed']);
    });

    test('an endpoint failing since before the cut-off is disabled as failing', async () => {
      const { target } = await setUp();
      const claim = await db().webhooks.claimDelivery(LEASE_MS, T0);
      const outcome = await db().webhooks.recordAttempt(claim!.message.id, claim!.leaseToken, {
        attempt: attempt(T0),
        next: { kind: 'retry', at: T0 + 1 },
        gone: false,
        disableIfFailingSince: T0,
      });
      expect(outcome.disabled).toBe('failing');
      expect(await db().webhooks.getEndpoint(ALICE, target.id)).toMatchObject({ disabledReason: 'failing' });
    });

    test("retry makes a delivery due now; another account's is unknown", async () => {
      const { target } = await setUp();
      const claim = await db().webhooks.claimDelivery(LEASE_MS, T0);
      await db().webhooks.recordAttempt(claim!.message.id, claim!.leaseToken, {
        attempt: { ...attempt(T0), statusCode: 200, errorClass: null },
        next: { kind: 'succeeded' },
        gone: false,
        disableIfFailingSince: 0,
      });
      expect(await db().webhooks.retryMessage(BOB, target.id, claim!.message.id)).toBeUndefined();
      expect(await db().webhooks.retryMessage(ALICE, target.id, claim!.message.id, T0 + 7)).toMatchObject({
        status: 'pending',
        nextAttemptAt: T0 + 7,
      });
      expect((await db().webhooks.claimDelivery(LEASE_MS, T0 + 7))?.message.id).toBe(claim!.message.id);
    });

    test('prune keeps events with pending deliveries and drops old settled ones', async () => {
      const { job } = await setUp();
      const settled = await db().webhooks.createEndpoint(endpoint({ accountId: BOB }));
      const other = await db().jobs.create(newJob({ accountId: BOB }));
      // Disabling fails what waits for the endpoint: BOB's event has nothing pending any more.
      await db().webhooks.updateEndpoint(BOB, settled.id, { status: 'disabled' }, T0);
      expect(await types(db(), other.id)).toEqual(['job.created']);
      expect(await db().webhooks.prune(T0 + 1)).toBe(1);
      expect(await types(db(), other.id)).toEqual([]);
      expect(await types(db(), job.id)).toEqual(['job.created']);
    });
  });
}
