// The Idempotency-Key store (SQLite and PostgreSQL) (docs/api.md §4): an atomic claim by primary key, the finished
// response kept for replay, release of refused requests, and pruning past retention.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { IdempotencyClaim, IdempotencyScope, IdempotencyStore, StoredResponse } from '../types.js';
import type { Tables } from './tables.js';

/** A claim that finds the row gone (released by its holder between our two statements) tries again. */
const CLAIM_ATTEMPTS = 3;

export class SqlIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Kysely<Tables>) {}

  async claim(
    scope: IdempotencyScope,
    { now = Date.now(), lockMs }: { now?: number; lockMs: number },
  ): Promise<IdempotencyClaim> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const token = randomUUID();
      // One statement, so two requests can never both win: the primary key makes the second INSERT
      // conflict. The conflict branch takes the row over only when it is dead — in flight past its
      // lock (the holder's process died) or past retention — and then RETURNING shows our token.
      // Until the outcome is stored, expires_at equals the lock, so pruning also clears dead claims.
      const { rows } = await sql<{ token: string }>`
        INSERT INTO idempotency_keys
          (account_id, method, route, key, token, state, created_at, locked_until, expires_at)
        VALUES (${scope.accountId}, ${scope.method}, ${scope.route}, ${scope.key}, ${token},
                'in_flight', ${now}, ${now + lockMs}, ${now + lockMs})
        ON CONFLICT (account_id, method, route, key) DO UPDATE SET
          token = excluded.token, state = 'in_flight', fingerprint = NULL, status = NULL,
          headers = NULL, body = NULL, created_at = excluded.created_at,
          locked_until = excluded.locked_until, expires_at = excluded.expires_at
        WHERE (idempotency_keys.state = 'in_flight' AND idempotency_keys.locked_until <= ${now})
           OR idempotency_keys.expires_at <= ${now}
        RETURNING token`.execute(this.db);
      if (rows[0]?.token === token) return { outcome: 'claimed', token };
      const row = await this.db
        .selectFrom('idempotency_keys')
        .select(['state', 'fingerprint', 'status', 'headers', 'body'])
        .where((eb) => eb.and(keyOf(scope)))
        .executeTakeFirst();
      if (!row) continue;
      if (row.state === 'in_flight') return { outcome: 'in_flight' };
      return {
        outcome: 'completed',
        fingerprint: row.fingerprint ?? '',
        response: {
          status: row.status ?? 500,
          headers: JSON.parse(row.headers ?? '{}') as Record<string, string>,
          body: Buffer.from(row.body ?? Buffer.alloc(0)),
        },
      };
    }
    // Claimed and released three times in a row by others: report it as busy, the client retries.
    return { outcome: 'in_flight' };
  }

  async complete(
    scope: IdempotencyScope,
    token: string,
    fingerprint: string,
    response: StoredResponse,
    expiresAt: number,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('idempotency_keys')
      .set({
        state: 'completed',
        fingerprint,
        status: response.status,
        headers: JSON.stringify(response.headers),
        body: response.body,
        expires_at: expiresAt,
      })
      // Only the holder: a request whose dead claim was taken over must not overwrite the new one.
      .where((eb) => eb.and(keyOf(scope)))
      .where('token', '=', token)
      .where('state', '=', 'in_flight')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async release(scope: IdempotencyScope, token: string): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where((eb) => eb.and(keyOf(scope)))
      .where('token', '=', token)
      .where('state', '=', 'in_flight')
      .execute();
  }

  async prune(now = Date.now()): Promise<number> {
    const result = await this.db
      .deleteFrom('idempotency_keys')
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** The row's primary key as an equality filter. */
function keyOf(scope: IdempotencyScope) {
  return { account_id: scope.accountId, method: scope.method, route: scope.route, key: scope.key };
}
