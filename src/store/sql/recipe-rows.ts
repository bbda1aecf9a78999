// Row shapes of the recipe tables (docs/api.md §13), part of `Tables` in rows.ts.

export interface RecipesTable {
  id: string;
  account_id: string;
  name: string;
  latest_version: number;
  created_at: number;
}

export interface RecipeVersionsTable {
  recipe_id: string;
  version: number;
  /** JSON JobStep[], as validated when the version was made. */
  steps: string;
  created_at: number;
}
