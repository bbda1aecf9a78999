// The recipe store (SQLite and PostgreSQL): a `recipes` row names the recipe and points at its newest
// version; `recipe_versions` holds every version's steps, never changed once written.
import type { Kysely, Selectable } from 'kysely';
import { QuireError } from '../../errors/quire-error.js';
import type { JobStep } from '../../model/job.js';
import type { RecipeRecord, RecipeRef } from '../../model/recipe.js';
import type { ListRecipesQuery, NewRecipe, RecipeStore } from '../recipe-types.js';
import type { SqlDialect } from './dialect.js';
import { keysetPage, type PageCursor } from './keyset-page.js';
import type { RecipesTable, Tables } from './tables.js';

type RecipeRow = Selectable<RecipesTable> & { steps: string; version: number; version_created_at: number };

export class SqlRecipeStore implements RecipeStore {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
  ) {}

  async create(recipe: NewRecipe, maxPerAccount?: number): Promise<RecipeRecord | undefined> {
    return this.dialect.transaction(this.db, async (conn) => {
      if (maxPerAccount !== undefined) await this.refuseAtLimit(conn, recipe.accountId, maxPerAccount);
      // The (account_id, name) unique index decides between two creates of one name at once.
      const inserted = await conn
        .insertInto('recipes')
        .values({
          id: recipe.id,
          account_id: recipe.accountId,
          name: recipe.name,
          latest_version: 1,
          created_at: recipe.createdAt,
        })
        .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return undefined;
      await conn
        .insertInto('recipe_versions')
        .values({
          recipe_id: recipe.id,
          version: 1,
          steps: JSON.stringify(recipe.steps),
          created_at: recipe.createdAt,
        })
        .execute();
      return { ...recipe, version: 1, latestVersion: 1, versionCreatedAt: recipe.createdAt };
    });
  }

  async get(accountId: string, ref: RecipeRef): Promise<RecipeRecord | undefined> {
    const row = await this.versions(this.db)
      .where((eb) => (ref.id ? eb('r.id', '=', ref.id) : eb('r.name', '=', ref.name ?? '')))
      .where('r.account_id', '=', accountId)
      .where((eb) =>
        ref.version === undefined
          ? eb('v.version', '=', eb.ref('r.latest_version'))
          : eb('v.version', '=', ref.version),
      )
      .executeTakeFirst();
    return row && toRecipe(row);
  }

  async list(
    accountId: string,
    query: ListRecipesQuery,
  ): Promise<{ recipes: RecipeRecord[]; hasMore: boolean }> {
    let cursor: PageCursor | undefined;
    if (query.startingAfter !== undefined) {
      cursor = await this.db
        .selectFrom('recipes')
        .select(['created_at', 'id'])
        .where('id', '=', query.startingAfter)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (!cursor) throw new QuireError('invalid_cursor', 'starting_after does not name one of your recipes');
    }
    const select = this.versions(this.db)
      .where('r.account_id', '=', accountId)
      .whereRef('v.version', '=', 'r.latest_version');
    const page = await keysetPage(select, ['r.created_at', 'r.id'], cursor, query.limit);
    return { recipes: page.rows.map(toRecipe), hasMore: page.hasMore };
  }

  async replace(
    accountId: string,
    ref: RecipeRef,
    steps: JobStep[],
    options: { now?: number; maxVersions?: number } = {},
  ): Promise<RecipeRecord | undefined> {
    const now = options.now ?? Date.now();
    return this.dialect.transaction(this.db, async (conn) => {
      // Locked (PostgreSQL FOR UPDATE; SQLite holds the write lock), so two replaces at once number
      // their versions one after the other instead of both taking latest + 1.
      const recipe = await this.dialect
        .lockRows(this.byRef(conn, accountId, ref).selectAll())
        .executeTakeFirst();
      if (!recipe) return undefined;
      const max = options.maxVersions;
      if (max !== undefined && recipe.latest_version >= max)
        throw limitExceeded(
          'versions',
          max,
          `A recipe may reach version ${max}; save the steps under a new name.`,
        );
      const version = recipe.latest_version + 1;
      await conn
        .insertInto('recipe_versions')
        .values({ recipe_id: recipe.id, version, steps: JSON.stringify(steps), created_at: now })
        .execute();
      await conn
        .updateTable('recipes')
        .set({ latest_version: version })
        .where('id', '=', recipe.id)
        .execute();
      return {
        id: recipe.id,
        accountId,
        name: recipe.name,
        version,
        latestVersion: version,
        steps,
        createdAt: recipe.created_at,
        versionCreatedAt: now,
      };
    });
  }

  async delete(accountId: string, ref: RecipeRef): Promise<boolean> {
    return this.dialect.transaction(this.db, async (conn) => {
      const recipe = await this.dialect
        .lockRows(this.byRef(conn, accountId, ref).select('id'))
        .executeTakeFirst();
      if (!recipe) return false;
      // Every version goes with the recipe; jobs that ran one keep what they recorded (id, name, version).
      await conn.deleteFrom('recipe_versions').where('recipe_id', '=', recipe.id).execute();
      await conn.deleteFrom('recipes').where('id', '=', recipe.id).execute();
      return true;
    });
  }

  /** Two creates at once each count under the account's lock, never both below the cap. */
  private async refuseAtLimit(conn: Kysely<Tables>, accountId: string, max: number): Promise<void> {
    await this.dialect
      .lockRows(conn.selectFrom('accounts').select('id').where('id', '=', accountId))
      .execute();
    const { n } = await conn
      .selectFrom('recipes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    if (Number(n) >= max)
      throw limitExceeded('recipes', max, `An account may keep ${max} recipes; delete one to save another.`);
  }

  /** The account's recipe a reference names (its version part is for reads only). */
  private byRef(conn: Kysely<Tables>, accountId: string, ref: RecipeRef) {
    return conn
      .selectFrom('recipes')
      .where(ref.id ? 'id' : 'name', '=', ref.id ?? ref.name ?? '')
      .where('account_id', '=', accountId);
  }

  private versions(conn: Kysely<Tables>) {
    return conn
      .selectFrom('recipes as r')
      .innerJoin('recipe_versions as v', 'v.recipe_id', 'r.id')
      .selectAll('r')
      .select(['v.steps', 'v.version', 'v.created_at as version_created_at']);
  }
}

function limitExceeded(limit: 'recipes' | 'versions', quota: number, detail: string): QuireError {
  return new QuireError('recipe_limit_exceeded', detail, { extras: { limit, quota } });
}

function toRecipe(row: RecipeRow): RecipeRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    version: row.version,
    latestVersion: row.latest_version,
    steps: JSON.parse(row.steps) as JobStep[],
    createdAt: row.created_at,
    versionCreatedAt: row.version_created_at,
  };
}
