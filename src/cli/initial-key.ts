// First start of an empty installation: one account and one all-scopes key, shown once and written
// to `<data dir>/initial-api-key` (0600) so a newcomer can make the first request right away.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ulid } from 'ulid';
import { createKey } from '../auth/issue-key.js';
import { allScopes } from '../model/account.js';
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
