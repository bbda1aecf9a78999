// The webhook store (SQLite and PostgreSQL): account-scoped endpoint management and the delivery log. The delivery
// queue itself (claim, record attempt) lives in webhook-delivery.ts.
import type { Kysely } from 'kysely';
import { QuireError } from '../../errors/quire-error.js';
import type { JobEventRecord } from '../../model/job-event.js';
import type { WebhookAttempt, WebhookEndpoint, WebhookMessage } from '../../model/webhook.js';
import type { AttemptRecord, DeliveryClaim, WebhookStore } from '../webhook-types.js';
import type { SqlDialect } from './dialect.js';
import { fromEndpoint, toEndpoint } from './endpoint-rows.js';
import { keysetPage, type PageCursor } from './keyset-page.js';
import type { QueuedMessages } from './queued-messages.js';
import type { Tables } from './tables.js';
import { ensureJobCallbackEndpoint, getJobCallbackEndpoint } from './webhook-callbacks.js';
import {
  claimDelivery,
  disableEndpoint,
  messageColumns,
  recordAttempt,
  toAttempt,
  toMessage,
} from './webhook-delivery.js';
import { listJobEvents, pruneEvents } from './webhook-events.js';

export class SqlWebhookStore implements WebhookStore {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
    private readonly messages: QueuedMessages,
  ) {}

  onQueued(listener: () => void): () => void {
    return this.messages.listen(listener);
  }

  async createEndpoint(endpoint: WebhookEndpoint, maxPerAccount?: number): Promise<WebhookEndpoint> {
    return this.dialect.transaction(this.db, async (conn) => {
      if (maxPerAccount !== undefined) {
        // Two registrations at once each count under the account's lock, never both below the cap.
        const account = this.dialect.lockRows(
          conn.selectFrom('accounts').select('id').where('id', '=', endpoint.accountId),
        );
        await account.execute();
        const { n } = await conn
          .selectFrom('webhook_endpoints')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', endpoint.accountId)
          .where('kind', '=', 'endpoint')
          .executeTakeFirstOrThrow();
        if (Number(n) >= maxPerAccount) {
          throw new QuireError(
            'webhook_endpoint_limit_exceeded',
            `An account may have ${maxPerAccount} webhook endpoints; delete one to add another.`,
            { extras: { max_endpoints: maxPerAccount } },
          );
        }
      }
      await conn.insertInto('webhook_endpoints').values(fromEndpoint(endpoint)).execute();
      return endpoint;
    });
  }

  ensureJobCallbackEndpoint(endpoint: WebhookEndpoint): Promise<WebhookEndpoint> {
    return ensureJobCallbackEndpoint(this.db, endpoint);
  }

  getJobCallbackEndpoint(accountId: string): Promise<WebhookEndpoint | undefined> {
    return getJobCallbackEndpoint(this.db, accountId);
  }

  async getEndpoint(accountId: string, id: string): Promise<WebhookEndpoint | undefined> {
    const row = await endpointRow(this.db, accountId, id).executeTakeFirst();
    return row && toEndpoint(row);
  }

  async listEndpoints(accountId: string): Promise<WebhookEndpoint[]> {
    const rows = await this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('kind', '=', 'endpoint')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toEndpoint);
  }

  updateEndpoint(
    accountId: string,
    id: string,
    changes: Partial<Pick<WebhookEndpoint, 'url' | 'description' | 'events' | 'status'>>,
    now = Date.now(),
  ): Promise<WebhookEndpoint | undefined> {
    return this.dialect.transaction(this.db, async (conn) => {
      const row = await this.dialect.lockRows(endpointRow(conn, accountId, id)).executeTakeFirst();
      if (!row) return undefined;
      if (changes.status === 'disabled' && row.status === 'enabled') {
        await disableEndpoint(conn, id, 'manual', now);
      }
      const updated = await conn
        .updateTable('webhook_endpoints')
        .set({
          url: changes.url ?? row.url,
          description: changes.description ?? row.description,
          events: changes.events ? JSON.stringify(changes.events) : row.events,
          updated_at: now,
          // Re-enabling starts afresh: the failure clock restarts with the next failed attempt.
          ...(changes.status === 'enabled' && row.status === 'disabled'
            ? { status: 'enabled', disabled_reason: null, failing_since: null }
            : {}),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toEndpoint(updated);
    });
  }

  async deleteEndpoint(accountId: string, id: string): Promise<boolean> {
    // Messages and their attempts go with it (ON DELETE CASCADE): a deleted endpoint gets nothing more.
    const result = await this.db
      .deleteFrom('webhook_endpoints')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('kind', '=', 'endpoint')
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async rotateSecret(
    accountId: string,
    id: string,
    secretEncrypted: string,
    previousExpiresAt: number,
    now = Date.now(),
  ): Promise<WebhookEndpoint | undefined> {
    const row = await this.db
      .updateTable('webhook_endpoints')
      // The outgoing secret keeps signing for the grace period; an older one still in grace is
      // dropped, so at most two signatures are ever sent.
      .set((eb) => ({
        previous_secret: eb.ref('secret'),
        previous_secret_expires_at: previousExpiresAt,
        secret: secretEncrypted,
        updated_at: now,
      }))
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .returningAll()
      .executeTakeFirst();
    return row && toEndpoint(row);
  }

  async listMessages(
    accountId: string,
    endpointId: string,
    query: { limit: number; startingAfter?: string },
  ): Promise<{ messages: Array<WebhookMessage & { attemptLog: WebhookAttempt[] }>; hasMore: boolean }> {
    const select = this.db
      .selectFrom('webhook_messages as m')
      .innerJoin('webhook_events as e', 'e.id', 'm.event_id')
      .select(messageColumns)
      .where('m.endpoint_id', '=', endpointId)
      .where('m.account_id', '=', accountId);
    let cursor: PageCursor | undefined;
    if (query.startingAfter !== undefined) {
      cursor = await this.db
        .selectFrom('webhook_messages')
        .select(['created_at', 'id'])
        .where('id', '=', query.startingAfter)
        .where('endpoint_id', '=', endpointId)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (!cursor)
        throw new QuireError('invalid_cursor', 'starting_after does not name a delivery of this endpoint');
    }
    const { rows, hasMore } = await keysetPage(select, ['m.created_at', 'm.id'], cursor, query.limit);
    const page = rows.map(toMessage);
    const attempts =
      page.length === 0
        ? []
        : await this.db
            .selectFrom('webhook_attempts')
            .selectAll()
            .where(
              'message_id',
              'in',
              page.map((m) => m.id),
            )
            .orderBy('id')
            .execute();
    const messages = page.map((m) => ({
      ...m,
      attemptLog: attempts.filter((a) => a.message_id === m.id).map(toAttempt),
    }));
    return { messages, hasMore };
  }

  async retryMessage(
    accountId: string,
    endpointId: string,
    messageId: string,
    now = Date.now(),
  ): Promise<WebhookMessage | undefined> {
    const updated = await this.db
      .updateTable('webhook_messages')
      // Due now whatever it was; a claimed attempt in flight keeps its lease and this one follows it.
      .set({ status: 'pending', next_attempt_at: now, completed_at: null })
      .where('id', '=', messageId)
      .where('endpoint_id', '=', endpointId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (updated.numUpdatedRows === 0n) return undefined;
    this.messages.queued();
    const row = await this.db
      .selectFrom('webhook_messages as m')
      .innerJoin('webhook_events as e', 'e.id', 'm.event_id')
      .select(messageColumns)
      .where('m.id', '=', messageId)
      .executeTakeFirstOrThrow();
    return toMessage(row);
  }

  claimDelivery(leaseMs: number, now = Date.now()): Promise<DeliveryClaim | undefined> {
    return claimDelivery(this.db, this.dialect, leaseMs, now);
  }

  recordAttempt(messageId: string, leaseToken: string, record: AttemptRecord) {
    return recordAttempt(this.db, this.dialect, messageId, leaseToken, record);
  }

  listJobEvents(jobId: string): Promise<JobEventRecord[]> {
    return listJobEvents(this.db, jobId);
  }

  prune(before: number): Promise<number> {
    return pruneEvents(this.db, before);
  }
}

function endpointRow(db: Kysely<Tables>, accountId: string, id: string) {
  return (
    db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      // The account's job-callback endpoint is reached through its own operations only.
      .where('kind', '=', 'endpoint')
  );
}
