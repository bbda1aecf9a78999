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
  /** Window length in whole seconds (the `w`); 60 in the table of docs/api.md §5. */
  windowSeconds: number;
  maxFileBytes: number;
  filesPerJob: number;
  concurrentJobs: number;
  resultRetentionMs: number;
  maxPages: number;
  /** Whole job, across steps and branches (docs/api.md §5): bytes of the final result. */
  maxOutputBytes: number;
  /** Whole job: files a job's steps fan out into (split, pdf-to-images parts), all branches added. */
  maxFanOut: number;
  /** Whole job: bytes in its work dir at once (inputs, every step's outputs, the packed result). */
  maxWorkBytes: number;
  /** Whole job: wall time its steps may spend running, all steps and branches added. */
  maxEngineMs: number;
  /** Per account: bytes stored at once, unfinished and finished uploads plus jobs' inputs and results. */
  maxStoredBytes: number;
  /** Per account: jobs queued or processing at once. */
  maxQueuedJobs: number;
  /** Per account: jobs created per `window_seconds` window, single and batch alike. */
  jobsPerWindow: number;
}

const MINUTE = 60_000;

/**
 * The plans of docs/api.md §5 (its table lists every field below). The whole-job limits are set so the plan's largest honest job fits: a split of
 * `max_pages` pages into as many parts, a result the size of a full upload several times over.
 */
export const defaultPlans: Readonly<Record<string, Plan>> = {
  free: {
    ...base('free', 60, 60, 25 * MiB, 10, 2, HOUR, 200),
    maxOutputBytes: 256 * MiB,
    maxFanOut: 200,
    maxWorkBytes: 1 * GiB,
    maxEngineMs: 5 * MINUTE,
    maxStoredBytes: 1 * GiB,
    maxQueuedJobs: 100,
    jobsPerWindow: 100,
  },
  pro: {
    ...base('pro', 600, 60, 500 * MiB, 50, 10, 24 * HOUR, 2_000),
    maxOutputBytes: 4 * GiB,
    maxFanOut: 2_000,
    maxWorkBytes: 16 * GiB,
    maxEngineMs: 30 * MINUTE,
    maxStoredBytes: 50 * GiB,
    maxQueuedJobs: 1_000,
    jobsPerWindow: 1_000,
  },
  business: {
    ...base('business', 3000, 60, 5 * GiB, 200, 50, 72 * HOUR, 10_000),
    maxOutputBytes: 32 * GiB,
    maxFanOut: 10_000,
    maxWorkBytes: 64 * GiB,
    maxEngineMs: 2 * HOUR,
    maxStoredBytes: 500 * GiB,
    maxQueuedJobs: 10_000,
    jobsPerWindow: 5_000,
  },
};

/** Accounts whose plan is no longer configured fall back to this one: the most restrictive default. */
export const FALLBACK_PLAN = 'free';

function base(
  name: string,
  requestsPerWindow: number,
  windowSeconds: number,
  maxFileBytes: number,
  filesPerJob: number,
  concurrentJobs: number,
  resultRetentionMs: number,
  maxPages: number,
) {
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
  max_output_bytes: { key: 'maxOutputBytes', min: 1, max: 1024 * 1024 * GiB },
  max_fan_out: { key: 'maxFanOut', min: 1, max: 1_000_000 },
  max_work_bytes: { key: 'maxWorkBytes', min: 1, max: 1024 * 1024 * GiB },
  max_engine_ms: { key: 'maxEngineMs', min: 1_000, max: 7 * 24 * HOUR },
  max_stored_bytes: { key: 'maxStoredBytes', min: 1, max: 1024 * 1024 * GiB },
  max_queued_jobs: { key: 'maxQueuedJobs', min: 1, max: 10_000_000 },
  jobs_per_window: { key: 'jobsPerWindow', min: 1, max: 10_000_000 },
};
export const planFieldNames = Object.keys(FIELDS);

const PLAN_NAME = /^[a-z][a-z0-9_-]{0,39}$/;
/** Built from the field list, so a new field is settable by variable without another edit. */
const PLAN_ENV = new RegExp(
  `^QUIRE_PLAN_([A-Z][A-Z0-9_]*?)_(${planFieldNames.map((f) => f.toUpperCase()).join('|')})$`,
);

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
  const next: Partial<Plan> = { ...(base ?? limitsOfFallback()), name };
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

/** The whole-job limits and account quotas: the fields that came after plans files existed. */
const LATER_FIELDS = [
  'maxOutputBytes',
  'maxFanOut',
  'maxWorkBytes',
  'maxEngineMs',
  'maxStoredBytes',
  'maxQueuedJobs',
  'jobsPerWindow',
] as const satisfies readonly (keyof Plan)[];

/**
 * A new plan that leaves the later fields out gets the fallback plan's (the most restrictive), so a
 * file written before them still loads.
 */
function limitsOfFallback(): Partial<Plan> {
  const fallback = defaultPlans[FALLBACK_PLAN] as Plan;
  return Object.fromEntries(LATER_FIELDS.map((key) => [key, fallback[key]]));
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
  /** The whole-job limits a running job is held to across its steps and branches. */
  job: WholeJobLimits;
}

export type WholeJobLimits = Pick<Plan, 'maxOutputBytes' | 'maxFanOut' | 'maxWorkBytes' | 'maxEngineMs'>;

/**
 * What a running job is held to: its account's per-file limit (URL imports), page limit, result
 * retention and whole-job limits.
 */
export type JobLimits = Pick<AccountLimits, 'maxFileBytes' | 'maxPages' | 'resultRetentionMs' | 'job'>;

export function accountLimits(caps: PlanCaps, planName: string): AccountLimits {
  const p = planFor(caps.plans, planName);
  return {
    plan: p,
    maxFileBytes: Math.min(p.maxFileBytes, caps.limits.uploadMaxFileBytes),
    maxTotalBytes: caps.limits.uploadMaxTotalBytes,
    maxFiles: Math.min(p.filesPerJob, caps.limits.uploadMaxFiles),
    maxPages: Math.min(p.maxPages, caps.limits.maxPages),
    resultRetentionMs: Math.min(p.resultRetentionMs, caps.retention.resultMs),
    job: {
      maxOutputBytes: p.maxOutputBytes,
      maxFanOut: p.maxFanOut,
      maxWorkBytes: p.maxWorkBytes,
      maxEngineMs: p.maxEngineMs,
    },
  };
}
