// What accounts get: the plans (file and QUIRE_PLAN_* overrides), the plan of new accounts and the
// per-IP budget of failed authentications. Fields at the top of `Config`.
import { Type } from '@sinclair/typebox';
import { loadPlans, type Plan } from '../plans.js';
import { ConfigError, int, type Section, type SectionValues, setting } from '../section.js';

export const accounts = {
  QUIRE_PLANS_FILE: setting(
    'plansFile',
    Type.String({
      default: '',
      description:
        'JSON file of plans (name → limits) merged over the built-in free/pro/business; `QUIRE_PLAN_<PLAN>_<FIELD>` variables override single values (docs/operations.md).',
    }),
  ),
  QUIRE_DEFAULT_PLAN: setting(
    'defaultPlan',
    Type.String({
      default: 'free',
      minLength: 1,
      description: 'Plan of accounts created without one (`quire accounts create`, `POST /api/v1/accounts`).',
    }),
  ),
  QUIRE_AUTH_FAILURES_PER_MIN: setting(
    'authFailuresPerMinute',
    int(
      1,
      100_000,
      30,
      'Failed authentications allowed per client IP per minute; then 429 before any key is checked.',
    ),
  ),
} satisfies Section;

export type Accounts = Omit<SectionValues<typeof accounts>, 'plansFile'> & {
  /** Plan name → limits; an account's limits are its plan's, capped by the server-wide `limits`. */
  plans: Record<string, Plan>;
};

/** The plans table read from the file and the QUIRE_PLAN_* variables; the default plan must be in it. */
export function resolveAccounts(values: SectionValues<typeof accounts>, env: NodeJS.ProcessEnv): Accounts {
  const { plansFile, ...rest } = values;
  let plans: Record<string, Plan>;
  try {
    plans = loadPlans(plansFile, env);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (!plans[values.defaultPlan]) {
    throw new ConfigError(`QUIRE_DEFAULT_PLAN="${values.defaultPlan}" is not a configured plan`);
  }
  return { ...rest, plans };
}
