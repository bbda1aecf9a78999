// The recipe store's interface (docs/api.md §13): named, versioned chains of job steps per account.
// Every operation is account-scoped, so another account's recipe reads as absent (→ 404).
import type { JobStep } from '../model/job.js';
import type { RecipeRecord, RecipeRef } from '../model/recipe.js';

export interface NewRecipe {
  id: string;
  accountId: string;
  name: string;
  steps: JobStep[];
  createdAt: number;
}

export interface ListRecipesQuery {
  limit: number;
  /** Recipe id: recipes created strictly before it (newest first); another account's id is `invalid_cursor`. */
  startingAfter?: string;
}

export interface RecipeStore {
  /**
   * Version 1 of a new recipe; undefined (nothing written) when the account already has the name.
   * With `maxPerAccount`, an account that has that many throws `recipe_limit_exceeded`.
   */
  create(recipe: NewRecipe, maxPerAccount?: number): Promise<RecipeRecord | undefined>;
  /** The version the reference names, else the newest; undefined when absent or another account's. */
  get(accountId: string, ref: RecipeRef): Promise<RecipeRecord | undefined>;
  /** Each recipe at its newest version, newest recipe first. */
  list(accountId: string, query: ListRecipesQuery): Promise<{ recipes: RecipeRecord[]; hasMore: boolean }>;
  /**
   * Adds version latest + 1 with these steps, the earlier versions unchanged; two replaces at once
   * get two different numbers. Undefined when the recipe is absent or another account's. With
   * `maxVersions`, a recipe at that version throws `recipe_limit_exceeded`.
   */
  replace(
    accountId: string,
    ref: RecipeRef,
    steps: JobStep[],
    options?: { now?: number; maxVersions?: number },
  ): Promise<RecipeRecord | undefined>;
  /** Deletes the recipe with every version; false when absent or another account's. */
  delete(accountId: string, ref: RecipeRef): Promise<boolean>;
}
