// Conformance of the account store: accounts, API keys looked up by their public key id, revocation.
import { describe, expect, test } from 'vitest';
import type { ApiKeyRecord } from '../../src/model/account.js';
import { ALICE, BOB, type OpenDatabase, T0, useDatabase } from './support/job-fixtures.js';

function key(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: 'key_01',
    keyId: 'AbCd1234',
    accountId: ALICE,
    name: 'ci',
    secretHash: 'a'.repeat(64),
    scopes: ['jobs:read', 'jobs:write'],
    mode: 'live',
    createdAt: T0,
    expiresAt: null,
    revokedAt: null,
    ...overrides,
  };
}

export function describeAccountConformance(open: OpenDatabase): void {
  const db = useDatabase(open);

  describe('accounts', () => {
    test('created accounts read back and list in creation order', async () => {
      const carol = { id: 'acct_carol', name: 'Carol', plan: 'business', createdAt: T0 + 1 };
      expect(await db().accounts.createAccount(carol)).toEqual(carol);
      expect(await db().accounts.getAccount('acct_carol')).toEqual(carol);
      expect(await db().accounts.getAccount('acct_missing')).toBeUndefined();
      expect((await db().accounts.listAccounts()).map((a) => a.id)).toEqual([ALICE, BOB, 'acct_carol']);
    });

    test('updateAccount changes name and plan, and reports unknown accounts', async () => {
      expect(await db().accounts.updateAccount(BOB, { plan: 'pro' })).toMatchObject({ id: BOB, plan: 'pro' });
      expect(await db().accounts.updateAccount(BOB, { name: 'Robert' })).toMatchObject({
        name: 'Robert',
        plan: 'pro',
      });
      expect(await db().accounts.getAccount(BOB)).toMatchObject({ name: 'Robert', plan: 'pro' });
      expect(await db().accounts.updateAccount('acct_missing', { plan: 'pro' })).toBeUndefined();
    });

    test('keys are found by their public key id, scopes and expiry intact, with the account’s plan', async () => {
      const stored = key({ expiresAt: T0 + 1000, mode: 'test', scopes: ['admin'] });
      await db().accounts.createKey(stored);
      expect(await db().accounts.findKey('AbCd1234')).toEqual({ key: stored, plan: 'pro' });
      await db().accounts.updateAccount(ALICE, { plan: 'business' });
      expect((await db().accounts.findKey('AbCd1234'))?.plan).toBe('business');
      // Key ids are case-sensitive base62: a different case is a different key.
      expect(await db().accounts.findKey('abcd1234')).toBeUndefined();
    });

    test('a second key with the same key id is refused', async () => {
      await db().accounts.createKey(key());
      await expect(db().accounts.createKey(key({ id: 'key_02' }))).rejects.toThrow();
      expect(await db().accounts.listKeys()).toHaveLength(1);
    });

    test('listKeys filters by account', async () => {
      await db().accounts.createKey(key({ id: 'key_01', keyId: 'aaaaaaa1' }));
      await db().accounts.createKey(
        key({ id: 'key_02', keyId: 'bbbbbbb2', accountId: BOB, createdAt: T0 + 1 }),
      );
      await db().accounts.createKey(key({ id: 'key_03', keyId: 'ccccccc3', createdAt: T0 + 2 }));
      expect((await db().accounts.listKeys()).map((k) => k.id)).toEqual(['key_01', 'key_02', 'key_03']);
      expect((await db().accounts.listKeys(ALICE)).map((k) => k.id)).toEqual(['key_01', 'key_03']);
      expect(await db().accounts.listKeys('acct_missing')).toEqual([]);
    });

    test('revokeKey stamps the first revocation and reports unknown keys', async () => {
      await db().accounts.createKey(key());
      expect(await db().accounts.revokeKey('AbCd1234', T0 + 10)).toBe(true);
      expect(await db().accounts.revokeKey('AbCd1234', T0 + 20)).toBe(true);
      expect((await db().accounts.findKey('AbCd1234'))?.key).toMatchObject({ revokedAt: T0 + 10 });
      expect(await db().accounts.revokeKey('zzzzzzzz')).toBe(false);
    });
  });
}
