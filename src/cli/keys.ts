// `quire keys create|list|revoke`: operator key management straight on the database.

import { createKey } from '../auth/issue-key.js';
import type { Config } from '../config/config.js';
import { allScopes, type Scope } from '../model/account.js';
import { createDefaultAccount } from './initial-key.js';
import { openRuntime, type Runtime } from './runtime.js';

export async function runKeys(
  config: Config,
  positionals: string[],
  flags: { account?: string; name?: string; scopes?: string; test?: boolean; 'expires-days'?: string },
): Promise<number> {
  const runtime = await openRuntime(
    config,
    (await import('../observability/logger.js')).createLogger('warn', process.stderr),
  );
  try {
    const [sub, arg] = positionals;
    const accounts = runtime.db.accounts;
    if (sub === 'create') {
      const accountId = flags.account ?? (await soleAccount(runtime));
      if (!(await accounts.getAccount(accountId))) throw new Error(`no account ${accountId}`);
      const scopes = (flags.scopes?.split(',').map((s) => s.trim()) ?? [...allScopes]) as Scope[];
      const bad = scopes.filter((s) => !allScopes.includes(s));
      if (bad.length > 0)
        throw new Error(`unknown scope(s) ${bad.join(', ')}; known: ${allScopes.join(', ')}`);
      const days = flags['expires-days'] === undefined ? null : Number(flags['expires-days']);
      if (days !== null && !(days > 0)) throw new Error('--expires-days must be a positive number');
      const { key, record } = await createKey(
        runtime,
        accountId,
        flags.name ?? 'cli',
        scopes,
        flags.test ? 'test' : 'live',
        days === null ? null : Date.now() + days * 86_400_000,
      );
      process.stdout.write(`${key}\n`);
      process.stderr.write(
        `created ${record.keyId} for ${accountId} with ${scopes.join(', ')} (the key is shown only now)\n`,
      );
      return 0;
    }
    if (sub === 'list') {
      for (const k of await accounts.listKeys(flags.account)) {
        const state = k.revokedAt
          ? 'revoked'
          : k.expiresAt && k.expiresAt < Date.now()
            ? 'expired'
            : 'active';
        process.stdout.write(
          `${k.keyId}\t${k.accountId}\t${k.mode}\t${state}\t${k.scopes.join(',')}\t${k.name}\n`,
        );
      }
      return 0;
    }
    if (sub === 'revoke' && arg) {
      const ok = await accounts.revokeKey(arg);
      process.stderr.write(ok ? `revoked ${arg}\n` : `no active key ${arg}\n`);
      return ok ? 0 : 1;
    }
    process.stderr.write('usage: quire keys create|list|revoke KEY_ID\n');
    return 2;
  } finally {
    await runtime.close();
  }
}

/** The only account, created (as on `serve`'s first start) when there is none yet. */
async function soleAccount(runtime: Runtime): Promise<string> {
  const accounts = await runtime.db.accounts.listAccounts();
  if (accounts.length === 0) {
    const account = await createDefaultAccount(runtime);
    process.stderr.write(`created account ${account.id}\n`);
    return account.id;
  }
  if (accounts.length !== 1) throw new Error(`there are ${accounts.length} accounts; pass --account`);
  return accounts[0]!.id;
}
