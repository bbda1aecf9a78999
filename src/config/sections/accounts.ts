// What accounts get: the plans (file and QUIRE_PLAN_* overrides), the plan of new accounts, the
// per-IP budget of failed authentications, and where a request's limits and key checks are kept.
// Fields at the top of `Config`.
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
  QUIRE_REQUEST_STATE: setting(
    'requestState',
    Type.Union([Type.Literal('auto'), Type.Literal('local'), Type.Literal('shared')], {
      default: 'auto',
      description:
        '`local`: rate limits counted in memory (synced to the database every `QUIRE_RATE_LIMIT_SYNC_MS`) and verified keys cached for `QUIRE_AUTH_CACHE_MS`, so a request writes nothing; `shared`: every request counts and checks its key in the database, exact across any number of API processes; `auto`: `local` for `quire serve`, `shared` for `quire api` (docs/api.md §5).',
    }),
  ),
  QUIRE_RATE_LIMIT_SYNC_MS: setting(
    'rateLimitSyncMs',
    int(
      50,
      60_000,
      1_000,
      'With local request state: how often the in-memory rate limits are merged into the database (what a crash can lose, and how stale other processes may be).',
    ),
  ),
  QUIRE_AUTH_CACHE_MS: setting(
    'authCacheMs',
    int(
      0,
      300_000,
      5_000,
      'With local request state: how long a verified key is trusted without reading it again; a revocation or plan change made by another process applies within this (0: never cached).',
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
