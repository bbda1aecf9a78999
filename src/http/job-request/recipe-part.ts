// The `recipe` part of POST /jobs and POST /batches (docs/api.md §13): a saved recipe's id or name,
// optionally `@version`, in place of `tool`/`options` or `steps`. Its steps are checked against
// today's tools by the `steps` part's own reader, so a recipe runs exactly what a `steps` part would.
import { QuireError } from '../../errors/quire-error.js';
import type { JobRecipe } from '../../model/job.js';
import { formatRecipeRef, parseRecipeRef } from '../../model/recipe.js';
import type { RecipeStore } from '../../store/recipe-types.js';
import type { ToolCatalog } from '../../tools/framework/catalog.js';
import { parseStepsField, type StepsTarget } from './steps-part.js';

export const RECIPE_PART = 'recipe';
/** The parts a `recipe` stands for: a request sends one form of the job. */
const JOB_FORM_PARTS = ['tool', 'options', 'steps', RECIPE_PART];
/** A step that fails these checks today was valid when saved: the tools changed, not the request. */
const OUTDATED_CODES = new Set(['invalid_request', 'invalid_options', 'unknown_tool']);

export interface RecipeSource {
  recipes: RecipeStore;
  accountId: string;
}

/** The part of the spec a `recipe` part fills in. */
export interface RecipeTarget extends StepsTarget {
  readonly seen: Set<string>;
  recipe: JobRecipe | undefined;
  /** The part as sent, for the Idempotency-Key fingerprint (a replace must not change a retry's). */
  recipeRef: string | undefined;
}

export async function readRecipePart(
  text: string,
  state: RecipeTarget,
  catalog: ToolCatalog,
  source: RecipeSource,
): Promise<void> {
  const other = JOB_FORM_PARTS.find((name) => state.seen.has(name));
  if (other !== undefined) throw conflictingForm(other === RECIPE_PART ? RECIPE_PART : other);
  state.seen.add(RECIPE_PART);
  const ref = parseRecipeRef(text);
  if (!ref) {
    throw new QuireError(
      'invalid_request',
      'The "recipe" part must be a recipe id or name, optionally with @version.',
      {
        errors: [{ field: RECIPE_PART, detail: 'is not a recipe id or name (optionally @version)' }],
      },
    );
  }
  const recipe = await source.recipes.get(source.accountId, ref);
  if (!recipe) {
    throw new QuireError('recipe_not_found', `No recipe "${text}" in this account.`, {
      errors: [{ field: RECIPE_PART, detail: 'names no recipe (or version) of this account' }],
    });
  }
  const named = formatRecipeRef(recipe);
  try {
    const parsed = parseStepsField({ parsed: recipe.steps }, catalog);
    state.entry = parsed.entry;
    state.options = parsed.options;
    state.nextSteps = parsed.nextSteps;
  } catch (error) {
    if (!(error instanceof QuireError && OUTDATED_CODES.has(error.code))) throw error;
    throw new QuireError(
      'recipe_outdated',
      `Recipe ${named} no longer fits the server's tools: ${error.detail} Replace it with steps that do.`,
      { errors: error.errors ?? [], extras: { recipe: named } },
    );
  }
  state.recipe = { id: recipe.id, name: recipe.name, version: recipe.version };
  state.recipeRef = text;
}

/** A `tool`, `options` or `steps` part in a request that has a `recipe` (either order). */
export function conflictingForm(name: string): QuireError {
  return new QuireError('invalid_request', 'Send one of "recipe", "steps" or "tool" and "options".', {
    errors: [{ field: name, detail: 'conflicts with the other form of the job' }],
  });
}

/** Whether `name` is a part a request with a `recipe` may not also send. */
export function conflictsWithRecipe(name: string, seen: ReadonlySet<string>): boolean {
  return seen.has(RECIPE_PART) && JOB_FORM_PARTS.includes(name);
}
