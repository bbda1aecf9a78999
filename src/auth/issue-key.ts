// Issuing API keys (docs/api.md §1): the key string exists in full only in the answer to its creation;
// the store keeps a keyed hash of the secret.
import { ulid } from 'ulid';
import type { ApiKeyRecord, Scope } from '../model/account.js';
import type { AccountStore } from '../store/types.js';
import { generateApiKey, hashKeySecret } from './api-key.js';

/** What issuing needs: where keys are stored and the pepper their secrets are hashed with. */
export interface KeyIssuer {
  db: { accounts: AccountStore };
  keys: { apiKeyPepper: Buffer };
}

/** Creates a key; the returned `key` string is the only time the secret exists outside the client. */
export async function createKey(
  issuer: KeyIssuer,
  accountId: string,
  name: string,
  scopes: Scope[],
  mode: 'live' | 'test' = 'live',
  expiresAt: number | null = null,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const generated = generateApiKey(mode);
  const record = await issuer.db.accounts.createKey({
    id: `key_${ulid()}`,
    keyId: generated.keyId,
    accountId,
    name,
    secretHash: hashKeySecret(issuer.keys.apiKeyPepper, generated.secret),
    scopes,
    mode,
    createdAt: Date.now(),
    expiresAt,
    revokedAt: null,
  });
  return { key: generated.key, record };
}
