// `quire accounts create|set-plan|list`: operator account management straight on the database,
// with plan names checked against the configured plans (QUIRE_PLANS_FILE and the built-ins).
import { ulid } from 'ulid';
import type { Config } from '../config/config.js';
import { openDatabase } from '../store/open.js';

export async function runAccounts(
  config: Config,
  positionals: string[],
  flags: { name?: string; plan?: string },
): Promise<number> {
  // Only the database: the full runtime would probe every engine, seconds of work for nothing here.
  const db = await openDatabase(config.databaseUrl, { poolMax: config.databasePoolMax });
  await db.migrate();
  const checkPlan = (plan: string) => {
    if (config.plans[plan]) return;
    throw new Error(`no plan "${plan}"; configured plans: ${Object.keys(config.plans).join(', ')}`);
  };
  try {
    const [sub, ...args] = positionals;
    const accounts = db.accounts;
    if (sub === 'create') {
      const plan = flags.plan ?? config.defaultPlan;
      checkPlan(plan);
      const account = await accounts.createAccount({
        id: `acct_${ulid()}`,
        name: flags.name ?? 'account',
        plan,
        createdAt: Date.now(),
      });
      process.stdout.write(`${account.id}\n`);
      process.stderr.write(
        `created ${account.id} on plan ${plan}; add a key with: quire keys create --account ${account.id}\n`,
      );
      return 0;
    }
    if (sub === 'set-plan' && args.length === 2) {
      const [id, plan] = args as [string, string];
      checkPlan(plan);
      const updated = await accounts.updateAccount(id, { plan });
      if (!updated) throw new Error(`no account ${id}`);
      process.stderr.write(`${id} is now on plan ${plan}\n`);
      return 0;
    }
    if (sub === 'list') {
      for (const a of await accounts.listAccounts()) {
        const known = config.plans[a.plan] ? '' : '\t(plan not configured: free limits apply)';
        process.stdout.write(
          `${a.id}\t${a.plan}\t${new Date(a.createdAt).toISOString()}\t${a.name}${known}\n`,
        );
      }
      return 0;
    }
    process.stderr.write(
      'usage: quire accounts create [--name N] [--plan P] | set-plan ACCOUNT_ID PLAN | list\n',
    );
    return 2;
  } finally {
    await db.close();
  }
}
