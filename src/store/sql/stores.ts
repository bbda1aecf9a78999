// The stores over one Kysely instance, for either dialect: what a Database exposes besides its
// lifecycle.
import type { Kysely } from 'kysely';
import type { Database } from '../job-stores.js';
import { SqlAccountStore } from './account-store.js';
import { SqlBatchStore } from './batch-store.js';
import type { SqlDialect } from './dialect.js';
import { SqlIdempotencyStore } from './idempotency-store.js';
import { SqlJobStore } from './job-store.js';
import { QueuedMessages } from './queued-messages.js';
import { SqlRateLimiter } from './rate-limiter.js';
import { SqlRecipeStore } from './recipe-store.js';
import type { Tables } from './tables.js';
import { SqlUploadStore } from './upload-store.js';
import { SqlWebhookStore } from './webhook-store.js';

/**
 * `messages` carries the word that webhook messages were queued from the job store, which queues
 * them, to the webhook store's listeners (the delivery slots); PostgreSQL adds other processes' word.
 */
export function sqlStores(
  db: Kysely<Tables>,
  dialect: SqlDialect,
  messages = new QueuedMessages(),
): Pick<
  Database,
  'jobs' | 'batches' | 'recipes' | 'webhooks' | 'accounts' | 'idempotency' | 'rateLimits' | 'uploads'
> {
  return {
    jobs: new SqlJobStore(db, dialect, messages),
    batches: new SqlBatchStore(db),
    recipes: new SqlRecipeStore(db, dialect),
    webhooks: new SqlWebhookStore(db, dialect, messages),
    accounts: new SqlAccountStore(db),
    idempotency: new SqlIdempotencyStore(db),
    rateLimits: new SqlRateLimiter(db, dialect),
    uploads: new SqlUploadStore(db),
  };
}
