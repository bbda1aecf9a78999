// Where a later step's secret options live on a job: under the job's own options, each keyed by its
// JSON pointer (`/steps/2/options/user_password`, a name no option has) and listed in its secret
// options, so the one scrub that erases the first step's secrets when the job ends (redact.ts, and
// its SQL forms in the stores) erases theirs too. The step itself keeps `[redacted]` in their place.
import type { JobRecord, JobStep } from './job.js';
import { REDACTED } from './redact.js';

/** The key of step `index`'s secret option `name` in the job's options. */
export function stepSecretKey(index: number, name: string): string {
  return `/steps/${index}/options/${name}`;
}

/** Whether an option key of a job holds a later step's secret rather than a first-step option. */
export function isStepSecretKey(key: string): boolean {
  return key.startsWith('/');
}

export interface StepsToStore {
  options: Record<string, unknown>;
  secretOptions: string[];
  nextSteps: JobStep[];
}

/**
 * The job's options, secret option names and later steps as stored: each later step's secrets
 * moved into the job's options under their pointers. `secretsOf` names a step tool's secret options.
 */
export function storedSteps(
  first: { options: Record<string, unknown>; secretOptions: readonly string[] },
  nextSteps: readonly JobStep[],
  secretsOf: (tool: string) => readonly string[],
): StepsToStore {
  const options = { ...first.options };
  const secretOptions = [...first.secretOptions];
  const stored = nextSteps.map((step, i) => {
    const kept = { ...step.options };
    for (const name of secretsOf(step.tool)) {
      if (!Object.hasOwn(kept, name)) continue;
      const key = stepSecretKey(i + 1, name);
      options[key] = kept[name];
      secretOptions.push(key);
      kept[name] = REDACTED;
    }
    return { tool: step.tool, options: kept };
  });
  return { options, secretOptions, nextSteps: stored };
}

/** The first step's options as given: the job's options without the later steps' secrets. */
export function firstStepOptions(options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([key]) => !isStepSecretKey(key)));
}

/**
 * Every step of the job with its secrets, as a worker runs them (while the job is active; once it
 * has ended the secrets read `[redacted]`).
 */
export function runnableSteps(job: Pick<JobRecord, 'tool' | 'options' | 'nextSteps'>): JobStep[] {
  const later = job.nextSteps.map((step, i) => {
    const options = { ...step.options };
    for (const name of Object.keys(options)) {
      const key = stepSecretKey(i + 1, name);
      if (Object.hasOwn(job.options, key)) options[name] = job.options[key];
    }
    return { tool: step.tool, options };
  });
  return [{ tool: job.tool, options: firstStepOptions(job.options) }, ...later];
}
