// Saved recipes (docs/api.md §13): how many one account keeps, and how many versions one recipe
// keeps, so a client in a loop cannot grow the tables without bound: `config.recipes`.
import { int, setting } from '../section.js';

export const recipes = {
  QUIRE_RECIPE_MAX_PER_ACCOUNT: setting(
    'maxPerAccount',
    int(1, 100_000, 200, 'Recipes one account may keep; one more is `recipe_limit_exceeded` (409).'),
  ),
  QUIRE_RECIPE_MAX_VERSIONS: setting(
    'maxVersions',
    int(
      1,
      100_000,
      1_000,
      'Versions one recipe may reach (versions never change, so none is dropped); a replace past it is `recipe_limit_exceeded` (409).',
    ),
  ),
};
