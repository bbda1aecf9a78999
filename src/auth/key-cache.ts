// Verified keys kept in memory (docs/api.md §1, `QUIRE_REQUEST_STATE=local`): a keyed request reads
// its key and plan from the database at most once per `ttlMs`. Revoking a key or changing a plan
// through this process drops the entries at once; another process's change applies within `ttlMs`.
import type { Account, ApiKeyRecord } from '../model/account.js';
import type { AccountStore } from '../store/types.js';

/** Enough for every active key of a large installation; past it the oldest entry goes. */
const MAX_KEYS = 10_000;

interface Cached {
  found: { key: ApiKeyRecord; plan: string };
  until: number;
}

/**
 * An AccountStore whose `findKey` answers from memory. Only keys that exist are kept: an unknown id
 * is read every time, so a key created by another process works on its first request, and guessed
 * ids cannot fill the cache. The secret is still compared on every request (authenticate.ts): the
 * cache holds the stored hash, never a presented key.
 */
export class KeyCache implements AccountStore {
  private readonly keys = new Map<string, Cached>();

  constructor(
    private readonly store: AccountStore,
    private readonly ttlMs: number,
  ) {}

  async findKey(keyId: string, now = Date.now()): Promise<{ key: ApiKeyRecord; plan: string } | undefined> {
    const cached = this.keys.get(keyId);
    if (cached && cached.until > now) return cached.found;
    const found = await this.store.findKey(keyId);
    this.keys.delete(keyId);
    if (found && this.ttlMs > 0) {
      if (this.keys.size >= MAX_KEYS) this.keys.delete(this.keys.keys().next().value as string);
      this.keys.set(keyId, { found, until: now + this.ttlMs });
    }
    return found;
  }

  /**
   * The key as the database has it now, past the cache, which it refreshes: for checks that must see
   * another process's revocation sooner than `ttlMs` (the keys of open event streams, once a second).
   */
  async findKeyNow(
    keyId: string,
    now = Date.now(),
  ): Promise<{ key: ApiKeyRecord; plan: string } | undefined> {
    this.keys.delete(keyId);
    return this.findKey(keyId, now);
  }

  async revokeKey(keyId: string, now?: number): Promise<boolean> {
    // Dropped before and after: a request reading the key while the revocation commits cannot put
    // the old record back.
    this.keys.delete(keyId);
    const revoked = await this.store.revokeKey(keyId, now);
    this.keys.delete(keyId);
    return revoked;
  }

  async updateAccount(id: string, changes: { name?: string; plan?: string }): Promise<Account | undefined> {
    this.forgetAccount(id);
    const updated = await this.store.updateAccount(id, changes);
    this.forgetAccount(id);
    return updated;
  }

  createAccount(account: Account): Promise<Account> {
    return this.store.createAccount(account);
  }

  getAccount(id: string): Promise<Account | undefined> {
    return this.store.getAccount(id);
  }

  listAccounts(): Promise<Account[]> {
    return this.store.listAccounts();
  }

  createKey(key: ApiKeyRecord): Promise<ApiKeyRecord> {
    return this.store.createKey(key);
  }

  listKeys(accountId?: string): Promise<ApiKeyRecord[]> {
    return this.store.listKeys(accountId);
  }

  private forgetAccount(accountId: string): void {
    for (const [keyId, cached] of this.keys)
      if (cached.found.key.accountId === accountId) this.keys.delete(keyId);
  }
}
