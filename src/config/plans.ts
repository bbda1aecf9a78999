// Plans as configuration (docs/api.md §5): the built-in table, a JSON file that adds or changes plans,
// and QUIRE_PLAN_<PLAN>_<FIELD> variables on top. Read once at start with the rest of the config.
import { readFileSync } from 'node:fs';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const HOUR = 3_600_000;

export interface Plan {
  name: string;
  /** Requests allowed per window (the `q` of RateLimit-Policy). */
  requestsPerWindow: number;
  /** Window length in whole seconds (the `w`); 60 in the contract's table. */
  windowSeconds: number;
  maxFileBytes: number;
  filesPerJob: number;
  concurrentJobs: number;
  resultRetentionMs: number;
  maxPages: number;
}

/** The contract's table; max pages is ours (the contract leaves it to the plan). */
export const defaultPlans: Readonly<Record<string, Plan>> = {
  free: plan('free', 60, 60, 25 * MiB, 10, 2, HOUR, 200),
  pro: plan('pro', 600, 60, 500 * MiB, 50, 10, 24 * HOUR, 2_000),
  business: plan('business', 3000, 60, 5 * GiB, 200, 50, 72 * HOUR, 10_000),
};

/** Accounts whose plan is no longer configured fall back to this one: the most restrictive default. */
export const FALLBACK_PLAN = 'free';

function plan(
  name: string,
  requestsPerWindow: number,
  windowSeconds: number,
  maxFileBytes: number,
  filesPerJob: number,
  concurrentJobs: number,
  resultRetentionMs: number,
  maxPages: number,
): Plan {
  return {
    name,
    requestsPerWindow,
    windowSeconds,
    maxFileBytes,
    filesPerJob,
    concurrentJobs,
    resultRetentionMs,
    maxPages,
  };
}

/** snake_case names used in the plans file, the environment (upper-cased) and the API. */
const FIELDS: Record<string, { key: keyof Omit<Plan, 'name'>; min: number; max: number }> = {
  requests_per_window: { key: 'requestsPerWindow', min: 1, max: 1_000_000 },
  window_seconds: { key: 'windowSeconds', min: 1, max: 86_400 },
  max_file_bytes: { key: 'maxFileBytes', min: 1, max: 1024 * GiB },
  files_per_job: { key: 'filesPerJob', min: 1, max: 10_000 },
  concurrent_jobs: { key: 'concurrentJobs', min: 1, max: 10_000 },
  result_retention_ms: { key: 'resultRetentionMs', min: 1_000, max: 365 * 24 * HOUR },
  max_pages: { key: 'maxPages', min: 1, max: 1_000_000 },
};
export const planFieldNames = Object.keys(FIELDS);

const PLAN_NAME = /^[a-z][a-z0-9_-]{0,39}$/;
const PLAN_ENV =
  /^QUIRE_PLAN_([A-Z][A-Z0-9_]*?)_(REQUESTS_PER_WINDOW|WINDOW_SECONDS|MAX_FILE_BYTES|FILES_PER_JOB|CONCURRENT_JOBS|RESULT_RETENTION_MS|MAX_PAGES)$/;

/** Whether a QUIRE_* variable is a plan override (so the unknown-setting check lets it through). */
export function isPlanVariable(name: string): boolean {
  return name.startsWith('QUIRE_PLAN_');
}

/**
 * Defaults, then the file (a JSON object: plan name → partial plan with snake_case fields; a new
 * name must give every field), then the variables. Throws Error naming the bad entry.
 */
export function loadPlans(file: string, env: NodeJS.ProcessEnv): Record<string, Plan> {
  const plans: Record<string, Plan> = structuredClone({ ...defaultPlans });
  if (file !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(`QUIRE_PLANS_FILE ${file}: ${(error as Error).message}`);
    }
    if (!isObject(parsed)) throw new Error(`QUIRE_PLANS_FILE ${file}: must be a JSON object of plans`);
    for (const [name, given] of Object.entries(parsed)) {
      if (!PLAN_NAME.test(name)) throw new Error(`QUIRE_PLANS_FILE: plan name "${name}" is invalid`);
      if (!isObject(given)) throw new Error(`QUIRE_PLANS_FILE: plan "${name}" must be an object`);
      plans[name] = applyFields(plans[name], name, given, `QUIRE_PLANS_FILE: plan "${name}"`);
    }
  }
  for (const [variable, value] of Object.entries(env)) {
    if (!isPlanVariable(variable) || value === undefined || value === '') continue;
    const match = PLAN_ENV.exec(variable);
    if (!match) throw new Error(`${variable}: expected QUIRE_PLAN_<PLAN>_<FIELD>`);
    const name = match[1]!.toLowerCase();
    const field = match[2]!.toLowerCase();
    if (!plans[name]) throw new Error(`${variable}: no plan "${name}" (define it in QUIRE_PLANS_FILE)`);
    plans[name] = applyFields(plans[name], name, { [field]: Number(value) }, variable);
  }
  return plans;
}

function applyFields(
  base: Plan | undefined,
  name: string,
  given: Record<string, unknown>,
  where: string,
): Plan {
  const next: Partial<Plan> = { ...(base ?? {}), name };
  for (const [field, value] of Object.entries(given)) {
    const spec = FIELDS[field];
    if (!spec) throw new Error(`${where}: unknown field "${field}" (known: ${planFieldNames.join(', ')})`);
    if (!Number.isInteger(value) || (value as number) < spec.min || (value as number) > spec.max) {
      throw new Error(`${where}: ${field} must be an integer from ${spec.min} to ${spec.max}`);
    }
    next[spec.key] = value as number;
  }
  const missing = Object.entries(FIELDS).filter(([, spec]) => next[spec.key] === undefined);
  if (missing.length > 0) throw new Error(`${where}: missing ${missing.map(([f]) => f).join(', ')}`);
  return next as Plan;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The account's plan, or the fallback when the configuration no longer has it. */
export function planFor(plans: Readonly<Record<string, Plan>>, name: string): Plan {
  return plans[name] ?? plans[FALLBACK_PLAN] ?? (defaultPlans[FALLBACK_PLAN] as Plan);
}

/** The public snake_case view of a plan (admin API, CLI). */
export function planView(p: Plan): Record<string, unknown> {
  const view: Record<string, unknown> = { name: p.name };
  for (const [field, spec] of Object.entries(FIELDS)) view[field] = p[spec.key];
  return view;
}

/** The server-wide settings every plan is capped by: the slice of the configuration plans need. */
export interface PlanCaps {
  plans: Readonly<Record<string, Plan>>;
  limits: {
    maxPages: number;
    uploadMaxFileBytes: number;
    uploadMaxTotalBytes: number;
    uploadMaxFiles: number;
  };
  retention: { resultMs: number };
}

/** What one account may do: its plan's numbers, each capped by the server-wide setting. */
export interface AccountLimits {
  plan: Plan;
  maxFileBytes: number;
  maxTotalBytes: number;
  maxFiles: number;
  maxPages: number;
  resultRetentionMs: number;
}

/** What a running job is held to: its account's page limit and result retention. */
export type JobLimits = Pick<AccountLimits, 'maxPages' | 'resultRetentionMs'>;

export function accountLimits(caps: PlanCaps, planName: string): AccountLimits {
  const p = planFor(caps.plans, planName);
  return {
    plan: p,
    maxFileBytes: Math.min(p.maxFileBytes, caps.limits.uploadMaxFileBytes),
    maxTotalBytes: caps.limits.uploadMaxTotalBytes,
    maxFiles: Math.min(p.filesPerJob, caps.limits.uploadMaxFiles),
    maxPages: Math.min(p.maxPages, caps.limits.maxPages),
    resultRetentionMs: Math.min(p.resultRetentionMs, caps.retention.resultMs),
  };
}
