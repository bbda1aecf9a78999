// /api/v1/recipes (docs/api.md §13): save, list, read, replace (a new version) and delete an account's
// named chains of steps. Reads take `jobs:read` and writes `jobs:write`: a recipe is a job request
// saved for later, so it lets a key do nothing its job scopes do not already allow (api.md §12 says why).
import type { FastifyInstance } from 'fastify';
import { type FieldError, QuireError } from '../../errors/quire-error.js';
import type { JobStep } from '../../model/job.js';
import { parseRecipeRef, type RecipeRef, recipeNotFound, recipeView } from '../../model/recipe.js';
import { ulid } from '../../model/ulid.js';
import type { ToolCatalog } from '../../tools/framework/catalog.js';
import type { AppDeps } from '../deps.js';
import { parseStepsField } from '../job-request/steps-part.js';
import { recipeSchemas } from './recipe-schemas.js';

type RefParams = { Params: { ref: string } };
type ListQuery = { limit: number; starting_after?: string };

export function registerRecipeRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { catalog } = deps;
  const recipes = deps.db.recipes;
  const { maxPerAccount, maxVersions } = deps.config.recipes;

  app.post<{ Body: { name: string; steps: unknown } }>('/api/v1/recipes', {
    config: { scope: 'jobs:write' },
    schema: recipeSchemas.create,
    handler: async (request, reply) => {
      const { name } = request.body;
      // An id is `rcp_` and a ULID; a name of that form would read as one.
      if (name.startsWith('rcp_'))
        throw new QuireError('invalid_request', 'A recipe name may not start with "rcp_".', {
          errors: [{ pointer: '/name', detail: 'starts with "rcp_", which ids do' }],
        });
      const recipe = await recipes.create(
        {
          id: `rcp_${ulid()}`,
          accountId: request.auth!.accountId,
          name,
          steps: recipeSteps(request.body.steps, catalog),
          createdAt: Date.now(),
        },
        maxPerAccount,
      );
      if (!recipe) {
        throw new QuireError('recipe_name_taken', `This account already has a recipe named "${name}".`, {
          errors: [{ pointer: '/name', detail: 'is taken; replace that recipe or pick another name' }],
        });
      }
      request.log.info({ recipe: recipe.id, steps: recipe.steps.length }, 'recipe created');
      return reply.code(201).header('Location', `/api/v1/recipes/${recipe.id}`).send(recipeView(recipe));
    },
  });

  app.get<{ Querystring: ListQuery }>('/api/v1/recipes', {
    config: { scope: 'jobs:read' },
    schema: recipeSchemas.list,
    handler: async (request) => {
      const { limit, starting_after: startingAfter } = request.query;
      const page = await recipes.list(request.auth!.accountId, { limit, startingAfter });
      return { object: 'list', data: page.recipes.map(recipeView), has_more: page.hasMore };
    },
  });

  app.get<RefParams>('/api/v1/recipes/:ref', {
    config: { scope: 'jobs:read' },
    schema: recipeSchemas.get,
    handler: async (request) => {
      const recipe = await recipes.get(request.auth!.accountId, pathRef(request.params.ref, true));
      if (!recipe) throw recipeNotFound();
      return recipeView(recipe);
    },
  });

  app.put<RefParams & { Body: { steps: unknown } }>('/api/v1/recipes/:ref', {
    config: { scope: 'jobs:write' },
    schema: recipeSchemas.replace,
    handler: async (request) => {
      const ref = pathRef(request.params.ref, false);
      const steps = recipeSteps(request.body.steps, catalog);
      const recipe = await recipes.replace(request.auth!.accountId, ref, steps, { maxVersions });
      if (!recipe) throw recipeNotFound();
      request.log.info({ recipe: recipe.id, version: recipe.version }, 'recipe replaced');
      return recipeView(recipe);
    },
  });

  app.delete<RefParams>('/api/v1/recipes/:ref', {
    config: { scope: 'jobs:write' },
    schema: recipeSchemas.remove,
    handler: async (request, reply) => {
      const deleted = await recipes.delete(request.auth!.accountId, pathRef(request.params.ref, false));
      if (!deleted) throw recipeNotFound();
      return reply.code(204).send();
    },
  });
}

/**
 * The `{ref}` of a path. A malformed one names no recipe, so it is 404 like any unknown id; a version
 * on a write is refused, since a version never changes and a delete takes them all.
 */
function pathRef(text: string, versionAllowed: boolean): RecipeRef {
  const ref = parseRecipeRef(text);
  if (!ref) throw recipeNotFound();
  if (ref.version !== undefined && !versionAllowed) {
    throw new QuireError('invalid_request', 'Name the recipe without @version: versions never change.', {
      errors: [{ pointer: '/ref', detail: 'names a version; replace and delete act on the whole recipe' }],
    });
  }
  return ref;
}

/**
 * The steps as saved: checked whole by the `steps` part's reader (so a recipe that saves is one a job
 * could run today), then kept as given, defaults not filled in, so a tool's new default applies.
 */
function recipeSteps(value: unknown, catalog: ToolCatalog): JobStep[] {
  parseStepsField({ parsed: value }, catalog);
  const steps = (value as Array<{ tool: string; options?: Record<string, unknown> }>).map((step) => ({
    tool: step.tool,
    options: step.options ?? {},
  }));
  const errors: FieldError[] = steps.flatMap((step, index) => {
    const secrets = catalog.get(step.tool)?.tool.secretOptions ?? [];
    return Object.keys(step.options)
      .filter((name) => secrets.includes(name))
      .map((name) => ({
        pointer: `/steps/${index}/options/${name}`,
        detail: 'is a secret; a recipe keeps none (send a job with steps instead)',
      }));
  });
  if (errors.length > 0) {
    throw new QuireError('invalid_options', 'A recipe cannot hold secret options.', { errors });
  }
  return steps;
}
