// Accounts and their API keys (docs/api.md §1): what a key may do is a set of scopes.

export const allScopes = ['jobs:write', 'jobs:read', 'results:read', 'webhooks:manage', 'admin'] as const;
export type Scope = (typeof allScopes)[number];

export interface Account {
  id: string; // acct_<ulid>
  name: string;
  plan: string;
  createdAt: number; // epoch ms
}

export interface ApiKeyRecord {
  id: string; // key_<ulid>
  /** The 8-character public key id embedded in the key string (lookup handle). */
  keyId: string;
  accountId: string;
  name: string;
  /** HMAC-SHA-256(pepper, secret), hex. */
  secretHash: string;
  scopes: Scope[];
  mode: 'live' | 'test';
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}
