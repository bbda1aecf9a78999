// Recipes (docs/api.md §13): a named, versioned chain of job steps an account saves once and names in
// a job or batch instead of `tool` or `steps`. Versions are immutable; the name rules and the
// reference grammar (`id`, `name`, either with `@version`) live here so every layer reads them alike.
import { QuireError } from '../errors/quire-error.js';
import type { JobStep } from './job.js';

export type { JobRecipe } from './job.js';

import { rfc3339 } from './job-view.js';

export interface RecipeRecord {
  id: string; // rcp_<ulid>
  accountId: string;
  name: string;
  /** The version read: the newest unless the reference named one (`name@2`). */
  version: number;
  /** The newest version; a replace makes latestVersion + 1. */
  latestVersion: number;
  /** The steps of `version`. */
  steps: JobStep[];
  /** When version 1 was made. */
  createdAt: number;
  /** When `version` was made. */
  versionCreatedAt: number;
}

/**
 * Lower case, digits, `.`, `_` and `-`, starting with a letter or digit, 1–64 characters: safe in a
 * URL path and a shell without quoting, and never holding `@`, the version separator. Lower case
 * only, so two names never differ by case alone. Saving also refuses names starting with `rcp_`, an
 * id's prefix, so a reference that reads as an id is never a name.
 */
export const RECIPE_NAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$';
const namePattern = new RegExp(RECIPE_NAME_PATTERN);
const idPattern = /^rcp_[0-9A-HJKMNP-TV-Z]{26}$/;
/** The most versions one reference may name; far above any real history, and a safe integer. */
const MAX_VERSION = 1_000_000_000;

/** A recipe reference: its id or name, and a version when it names one (`@3`). */
export interface RecipeRef {
  id?: string;
  name?: string;
  version?: number;
}

/** `rcp_…`, `name`, `rcp_…@3` or `name@3`; undefined when the text is none of them. */
export function parseRecipeRef(text: string): RecipeRef | undefined {
  const at = text.lastIndexOf('@');
  const head = at === -1 ? text : text.slice(0, at);
  let version: number | undefined;
  if (at !== -1) {
    const tail = text.slice(at + 1);
    if (!/^[1-9][0-9]{0,9}$/.test(tail) || Number(tail) > MAX_VERSION) return undefined;
    version = Number(tail);
  }
  const named = idPattern.test(head) ? { id: head } : namePattern.test(head) ? { name: head } : undefined;
  if (!named) return undefined;
  return version === undefined ? named : { ...named, version };
}

/** The reference as text, for messages and the job view. */
export function formatRecipeRef(recipe: Pick<RecipeRecord, 'name' | 'version'>): string {
  return `${recipe.name}@${recipe.version}`;
}

/**
 * No recipe answers the reference for this account (another account's recipe included). The path is
 * not echoed: a malformed one is any text a client put there.
 */
export function recipeNotFound(): QuireError {
  return new QuireError('not_found', 'No recipe (or version) with this name or id in this account.');
}

/** The public recipe object: the version read, with its steps. */
export function recipeView(recipe: RecipeRecord): Record<string, unknown> {
  const self = `/api/v1/recipes/${recipe.id}`;
  return {
    id: recipe.id,
    object: 'recipe',
    name: recipe.name,
    version: recipe.version,
    latest_version: recipe.latestVersion,
    steps: recipe.steps.map((step) => ({ tool: step.tool, options: step.options })),
    created_at: rfc3339(recipe.createdAt),
    version_created_at: rfc3339(recipe.versionCreatedAt),
    links: { self, version: `${self}@${recipe.version}` },
  };
}
