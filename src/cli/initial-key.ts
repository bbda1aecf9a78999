// First start of an empty installation: one account and one all-scopes key, shown once and written
// to `<data dir>/initial-api-key` (0600) so a newcomer can make the first request right away.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ulid } from 'ulid';
import { generateApiKey, hashKeySecret } from '../auth/api-key.js';
import { allScopes, type Scope } from '../store/types.js';
import type { Runtime } from './runtime.js';

export async function ensureInitialKey(runtime: Runtime): Promise<string | undefined> {
  if ((await runtime.db.accounts.listAccounts()).length > 0) return undefined;
  const account = await createDefaultAccount(runtime);
  const { key } = await createKey(runtime, account.id, 'initial key', [...allScopes]);
  const file = path.join(runtime.config.dataDir, 'initial-api-key');
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/** The operator's own account: the highest built-in plan, so the first key is not the one limited. */
export function createDefaultAccount(runtime: Runtime) {
  return runtime.db.accounts.createAccount({
    id: `acct_${ulid()}`,
    name: 'default',
    plan: 'business',
    createdAt: Date.now(),
  });
}

/** Creates a key; the returned `key` string is the only time the secret exists outside the client. */
export async function createKey(
  runtime: Pick<Runtime, 'db' | 'keys'>,
  accountId: string,
  name: string,
  scopes: Scope[],
  mode: 'live' | 'test' = 'live',
  expiresAt: number | null = null,
) {
  const generated = generateApiKey(mode);
  const record = await runtime.db.accounts.createKey({
    id: `key_${ulid()}`,
    keyId: generated.keyId,
    accountId,
    name,
    secretHash: hashKeySecret(runtime.keys.apiKeyPepper, generated.secret),
    scopes,
    mode,
    createdAt: Date.now(),
    expiresAt,
    revokedAt: null,
  });
  return { key: generated.key, record };
}
