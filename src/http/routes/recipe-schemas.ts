// Route schemas for /recipes (docs/api.md §13): they validate bodies, params and queries and feed the
// OpenAPI document, with the recipe object as `recipeView` builds it. The steps themselves are checked
// by the `steps` part's reader (job-request/steps-part.ts), as a job's are.
import { Type } from '@sinclair/typebox';
import { RECIPE_NAME_PATTERN } from '../../model/recipe.js';
import { MAX_STEPS } from '../job-request/limits.js';
import { type DocResponse, json, noContent, problem, ref } from './common-schemas.js';

const time = (description: string) => Type.String({ format: 'date-time', description });

const StepSchema = Type.Object(
  {
    tool: Type.String({ description: 'A tool name from `listTools`.' }),
    options: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'The tool’s options; omitted means `{}`.' }),
    ),
  },
  { additionalProperties: true },
);

export const RecipeSchema = Type.Object(
  {
    id: Type.String({ description: '`rcp_` + ULID.' }),
    object: Type.Literal('recipe'),
    name: Type.String({ pattern: RECIPE_NAME_PATTERN }),
    version: Type.Integer({ minimum: 1, description: 'The version shown: the newest unless one was named.' }),
    latest_version: Type.Integer({ minimum: 1, description: 'The newest version.' }),
    steps: Type.Array(StepSchema, {
      description: 'The steps of `version`, as saved (defaults not filled in).',
    }),
    created_at: time('When version 1 was saved.'),
    version_created_at: time('When `version` was saved.'),
    links: Type.Object({
      self: Type.String(),
      version: Type.String({ description: 'This version’s own path (`/api/v1/recipes/{id}@{version}`).' }),
    }),
  },
  { description: 'A recipe: a named chain of job steps, versioned; versions never change.' },
);

export const recipeComponents = {
  Recipe: RecipeSchema,
  RecipeList: Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(ref('Recipe'), { description: 'Each recipe at its newest version.' }),
    has_more: Type.Boolean({ description: 'Fetch the next page with `starting_after=<last id>`.' }),
  }),
};

const stepsBody = {
  type: 'array',
  description: `The steps, as a job's \`steps\` part takes them (1–${MAX_STEPS}), checked the same way. Secret options (passwords, certificates) are refused: a recipe keeps no secret.`,
  items: {
    type: 'object',
    required: ['tool'],
    properties: { tool: { type: 'string' }, options: { type: 'object', additionalProperties: true } },
  },
} as const;

const refParams = {
  type: 'object',
  required: ['ref'],
  properties: {
    ref: {
      type: 'string',
      maxLength: 80,
      description: 'The recipe’s id (`rcp_…`) or name; on a read, optionally `@version` (`scan-cleanup@2`).',
    },
  },
} as const;

const tags = ['Recipes'];
const notFound = problem(['not_found']);
const invalidSteps = problem(['invalid_request', 'invalid_options', 'unknown_tool', 'tool_unavailable']);
const recipeAnswer = (description: string, headers: 'Location'[] = []): DocResponse =>
  json(description, ref('Recipe'), headers);

export const recipeSchemas = {
  create: {
    operationId: 'createRecipe',
    tags,
    summary: 'Save a recipe',
    description:
      'Saves version 1 of a named chain of steps. The name is unique in the account: 1–64 characters of a–z, 0–9, `.`, `_` and `-`, starting with a letter or digit, not with `rcp_`.',
    body: {
      type: 'object',
      required: ['name', 'steps'],
      additionalProperties: false,
      properties: { name: { type: 'string', pattern: RECIPE_NAME_PATTERN }, steps: stepsBody },
    },
    responses: {
      201: recipeAnswer('The recipe at version 1.', ['Location']),
      400: invalidSteps,
      409: problem(['recipe_name_taken', 'recipe_limit_exceeded']),
    },
  },
  list: {
    operationId: 'listRecipes',
    tags,
    summary: 'List recipes',
    description: 'The account’s recipes at their newest version, newest recipe first.',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        starting_after: {
          type: 'string',
          pattern: '^rcp_[0-9A-HJKMNP-TV-Z]{26}$',
          description: 'The last recipe id of the previous page.',
        },
      },
    },
    responses: {
      200: json('A page of recipes.', ref('RecipeList')),
      400: problem(['invalid_request', 'invalid_cursor']),
    },
  },
  get: {
    operationId: 'getRecipe',
    tags,
    summary: 'Get a recipe',
    description: 'The newest version, or the version named with `@version`.',
    params: refParams,
    responses: { 200: recipeAnswer('The recipe.'), 404: notFound },
  },
  replace: {
    operationId: 'replaceRecipe',
    tags,
    summary: 'Replace a recipe’s steps',
    description:
      'Saves the steps as the next version (latest + 1); earlier versions stay as they were and can still be run as `name@version`. Name the recipe without `@version`.',
    params: refParams,
    body: {
      type: 'object',
      required: ['steps'],
      additionalProperties: false,
      properties: { steps: stepsBody },
    },
    responses: {
      200: recipeAnswer('The recipe at its new version.'),
      400: invalidSteps,
      404: notFound,
      409: problem(['recipe_limit_exceeded']),
    },
  },
  remove: {
    operationId: 'deleteRecipe',
    tags,
    summary: 'Delete a recipe',
    description:
      'Deletes the recipe with every version; the name is free again. Jobs that ran it keep their `recipe` (id, name, version). Name the recipe without `@version`.',
    params: refParams,
    responses: { 204: noContent('Deleted.'), 404: notFound },
  },
} as const;
