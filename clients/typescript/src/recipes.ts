// `client.recipes` (docs/api.md §13): named, versioned chains of steps saved on the server, which
// `jobs.create({ recipe })`, `batches.create({ recipe })` and `runRecipe` name. One typed call each.
import { type Api, data, everyItem } from './api.js';
import type { components, operations } from './generated/schema.js';
import type { Step } from './tool-options.js';

export type Recipe = components['schemas']['Recipe'];
export type RecipeList = components['schemas']['RecipeList'];
export type ListRecipesQuery = NonNullable<operations['listRecipes']['parameters']['query']>;

export class Recipes {
  constructor(private readonly api: Api) {}

  /** Saves version 1; QuireError `recipe_name_taken` when the account has the name. */
  async create(
    body: { name: string; steps: Step[] },
    options: { idempotencyKey?: string } = {},
  ): Promise<Recipe> {
    return data(await this.api.POST('/api/v1/recipes', { body, headers: idempotency(options) }));
  }

  /** By id or name, optionally `@version` (`scan-cleanup@2`); the newest version without one. */
  async get(ref: string): Promise<Recipe> {
    return data(await this.api.GET('/api/v1/recipes/{ref}', { params: { path: { ref } } }));
  }

  async list(query: ListRecipesQuery = {}): Promise<RecipeList> {
    return data(await this.api.GET('/api/v1/recipes', { params: { query } }));
  }

  /** Every recipe at its newest version, page after page, newest first. */
  async *iterate(query: Omit<ListRecipesQuery, 'starting_after'> = {}): AsyncGenerator<Recipe> {
    yield* everyItem((after) =>
      this.list({ ...query, ...(after === undefined ? {} : { starting_after: after }) }),
    );
  }

  /** Saves `steps` as the next version; earlier versions stay runnable as `name@n`. */
  async replace(ref: string, steps: Step[], options: { idempotencyKey?: string } = {}): Promise<Recipe> {
    return data(
      await this.api.PUT('/api/v1/recipes/{ref}', {
        params: { path: { ref } },
        body: { steps },
        headers: idempotency(options),
      }),
    );
  }

  /** Deletes the recipe with every version. */
  async delete(ref: string): Promise<void> {
    await this.api.DELETE('/api/v1/recipes/{ref}', { params: { path: { ref } } });
  }
}

function idempotency(options: { idempotencyKey?: string }): Record<string, string> {
  return options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey };
}
