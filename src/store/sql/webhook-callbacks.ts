// The account's job-callback endpoint (docs/api.md §6, "Per-job webhook_url"): a hidden endpoint row
// that holds the account's job webhook secret, so per-job deliveries ride the same outbox, lease and
// retry machinery as endpoint deliveries. It subscribes to nothing (events `[]`), so fan-out skips it.
import type { Kysely } from 'kysely';
import type { WebhookEndpoint } from '../../model/webhook.js';
import { fromEndpoint, toEndpoint } from './endpoint-rows.js';
import type { Tables } from './tables.js';

/** The events a job's own webhook_url receives: the job's end, in whichever way it ends. */
export const jobCallbackEvents = ['job.succeeded', 'job.failed', 'job.canceled'] as const;

/**
 * Stores `endpoint` as the account's job-callback endpoint unless it has one already (a unique
 * partial index makes two first uses at once agree), and returns the one that stands.
 */
export async function ensureJobCallbackEndpoint(
  db: Kysely<Tables>,
  endpoint: WebhookEndpoint,
): Promise<WebhookEndpoint> {
  await db
    .insertInto('webhook_endpoints')
    .values({ ...fromEndpoint({ ...endpoint, events: [] }), kind: 'job_callback' })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const stored = await getJobCallbackEndpoint(db, endpoint.accountId);
  if (!stored) throw new Error('the job-callback endpoint was neither inserted nor found');
  return stored;
}

export async function getJobCallbackEndpoint(
  db: Kysely<Tables>,
  accountId: string,
): Promise<WebhookEndpoint | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('kind', '=', 'job_callback')
    .executeTakeFirst();
  return row && toEndpoint(row);
}
