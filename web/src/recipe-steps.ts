// What the recipe screens share: a recipe's steps, the name rule the server keeps, whether the builder
// still holds a saved version as it is, and a refusal's field errors placed on the builder's fields.
import type { QuireError } from '@quire/client/browser';
import type { Values } from './schema-form.js';

export type RecipeSteps = Array<{ tool: string; options?: Values }>;

/** docs/api.md §13: 1–64 of a–z, 0–9, `.`, `_`, `-`, starting with a letter or digit, never `rcp_…`. */
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function nameMistake(name: string): string | undefined {
  if (!NAME.test(name))
    return 'Use 1 to 64 lower-case letters, digits, “.”, “_” or “-”, starting with a letter or digit.';
  if (name.startsWith('rcp_')) return 'A name may not start with “rcp_” (ids do).';
  return undefined;
}

/** The same steps and options, whatever the order of the options' keys (the server keeps its own). */
export function sameSteps(a: RecipeSteps, b: RecipeSteps): boolean {
  const canonical = (steps: RecipeSteps) =>
    JSON.stringify(
      steps.map((s) => [s.tool, Object.entries(s.options ?? {}).sort(([x], [y]) => x.localeCompare(y))]),
    );
  return canonical(a) === canonical(b);
}

export interface BuilderErrors {
  name?: string;
  /** By step index, then option name (or `tool` for the step itself). */
  steps: Record<number, Record<string, string>>;
  /** What no field shows. */
  other?: string;
}

/** A refused save or run, placed by its pointers (`/name`, `/steps/1/options/angle`, `/steps/0/tool`). */
export function builderErrors(error: QuireError): BuilderErrors {
  const placed: BuilderErrors = { steps: {} };
  const unplaced: string[] = [];
  for (const field of error.errors) {
    const pointer = field.pointer ?? '';
    const step = /^\/steps\/(\d+)\/(?:options\/([^/]+)|(tool))/.exec(pointer);
    if (pointer === '/name' || field.field === 'name') placed.name = field.detail;
    else if (step) {
      const at = Number(step[1]);
      const option = (step[2] ?? step[3] ?? '').replaceAll('~1', '/').replaceAll('~0', '~');
      placed.steps[at] = { ...placed.steps[at], [option]: field.detail };
    } else unplaced.push(field.detail);
  }
  if (error.code === 'recipe_name_taken') placed.name = error.detail;
  if (placed.name === undefined && Object.keys(placed.steps).length === 0)
    placed.other = `${error.title}: ${error.detail}${unplaced.length ? ` (${unplaced.join('; ')})` : ''}`;
  return placed;
}
