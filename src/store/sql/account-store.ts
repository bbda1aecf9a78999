// The account store (SQLite and PostgreSQL): accounts and their API keys (stored as keyed hashes, looked up by the
// public key id embedded in the key string, docs/api.md §1).
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Account, ApiKeyRecord, Scope } from '../../model/account.js';
import type { AccountStore } from '../types.js';
import type { AccountsTable, ApiKeysTable, Tables } from './tables.js';

export class SqlAccountStore implements AccountStore {
  constructor(private readonly db: Kysely<Tables>) {}

  async createAccount(account: Account): Promise<Account> {
    await this.db.insertInto('accounts').values(fromAccount(account)).execute();
    return account;
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toAccount(row);
  }

  async listAccounts(): Promise<Account[]> {
    const rows = await this.db
      .selectFrom('accounts')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toAccount);
  }

  async updateAccount(id: string, changes: { name?: string; plan?: string }): Promise<Account | undefined> {
    const set = {
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.plan === undefined ? {} : { plan: changes.plan }),
    };
    if (Object.keys(set).length === 0) return this.getAccount(id);
    const row = await this.db
      .updateTable('accounts')
      .set(set)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toAccount(row);
  }

  async createKey(key: ApiKeyRecord): Promise<ApiKeyRecord> {
    await this.db.insertInto('api_keys').values(fromApiKey(key)).execute();
    return key;
  }

  async findKey(keyId: string): Promise<{ key: ApiKeyRecord; plan: string } | undefined> {
    const row = await this.db
      .selectFrom('api_keys as k')
      .innerJoin('accounts as a', 'a.id', 'k.account_id')
      .selectAll('k')
      .select('a.plan')
      .where('k.key_id', '=', keyId)
      .executeTakeFirst();
    return row && { key: toApiKey(row), plan: row.plan };
  }

  async listKeys(accountId?: string): Promise<ApiKeyRecord[]> {
    let query = this.db.selectFrom('api_keys').selectAll();
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return rows.map(toApiKey);
  }

  /** True when the key exists; revoking twice keeps the first revocation time. */
  async revokeKey(keyId: string, now = Date.now()): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

function toAccount(row: Selectable<AccountsTable>): Account {
  return { id: row.id, name: row.name, plan: row.plan, createdAt: row.created_at };
}

function fromAccount(account: Account): Insertable<AccountsTable> {
  return { id: account.id, name: account.name, plan: account.plan, created_at: account.createdAt };
}

function toApiKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    keyId: row.key_id,
    accountId: row.account_id,
    name: row.name,
    secretHash: row.secret_hash,
    scopes: JSON.parse(row.scopes) as Scope[],
    mode: row.mode,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

function fromApiKey(key: ApiKeyRecord): Insertable<ApiKeysTable> {
  return {
    id: key.id,
    key_id: key.keyId,
    account_id: key.accountId,
    name: key.name,
    secret_hash: key.secretHash,
    scopes: JSON.stringify(key.scopes),
    mode: key.mode,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    revoked_at: key.revokedAt,
  };
}
