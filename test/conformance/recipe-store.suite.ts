// Conformance of the recipe store (src/store/recipe-types.ts): names unique per account, versions
// numbered one after another even when replaced at once, reads by id, name and version, account
// scoping, paging and deletion of every version. Every Database implementation runs these unchanged.
import { describe, expect, test } from 'vitest';
import type { JobStep } from '../../src/model/job.js';
import type { NewRecipe } from '../../src/store/recipe-types.js';
import { ALICE, BOB, type OpenDatabase, T0, useDatabase } from './support/job-fixtures.js';

const steps = (angle: number): JobStep[] => [{ tool: 'rotate', options: { angle } }];
let sequence = 0;
const recipe = (name: string, extra: Partial<NewRecipe> = {}): NewRecipe => ({
  id: `rcp_${String(++sequence).padStart(26, '0')}`,
  accountId: ALICE,
  name,
  steps: steps(90),
  createdAt: T0 + sequence,
  ...extra,
});

export function describeRecipeConformance(open: OpenDatabase): void {
  const db = useDatabase(open);

  describe('recipes', () => {
    test('a name is unique per account; another account may use it', async () => {
      const first = await db().recipes.create(recipe('clean'));
      expect(first).toMatchObject({ name: 'clean', version: 1, latestVersion: 1, steps: steps(90) });
      expect(await db().recipes.create(recipe('clean'))).toBeUndefined();
      expect(await db().recipes.create(recipe('clean', { accountId: BOB }))).toMatchObject({
        accountId: BOB,
      });
      const both = await Promise.all([
        db().recipes.create(recipe('twin')),
        db().recipes.create(recipe('twin')),
      ]);
      expect(both.filter(Boolean)).toHaveLength(1);
      // Bob has one; with a cap of 2, two creates at once make one more and refuse the other.
      const capped = await Promise.allSettled(
        ['b1', 'b2'].map((name) => db().recipes.create(recipe(name, { accountId: BOB }), 2)),
      );
      expect(capped.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = capped.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toMatchObject({
        code: 'recipe_limit_exceeded',
        extras: { limit: 'recipes', quota: 2 },
      });
    });

    // One test per fresh database where it can be: each costs a migration, seconds on PostgreSQL.
    test('replace adds the next version, every version stays readable; replaces at once get different numbers', async () => {
      const created = (await db().recipes.create(recipe('turn')))!;
      const second = await db().recipes.replace(ALICE, { name: 'turn' }, steps(180), { now: T0 + 100 });
      expect(second).toMatchObject({
        id: created.id,
        version: 2,
        latestVersion: 2,
        versionCreatedAt: T0 + 100,
      });
      expect(await db().recipes.get(ALICE, { id: created.id })).toMatchObject({
        version: 2,
        steps: steps(180),
      });
      expect(await db().recipes.get(ALICE, { name: 'turn', version: 1 })).toMatchObject({
        version: 1,
        latestVersion: 2,
        steps: steps(90),
        createdAt: created.createdAt,
      });
      expect(await db().recipes.get(ALICE, { name: 'turn', version: 3 })).toBeUndefined();
      await db().recipes.create(recipe('busy'));
      const versions = await Promise.all(
        [180, 270, 0].map((angle) => db().recipes.replace(ALICE, { name: 'busy' }, steps(angle))),
      );
      expect(versions.map((v) => v?.version).sort()).toEqual([2, 3, 4]);
      expect(await db().recipes.get(ALICE, { name: 'busy' })).toMatchObject({ version: 4 });
      await expect(
        db().recipes.replace(ALICE, { name: 'busy' }, steps(90), { maxVersions: 4 }),
      ).rejects.toMatchObject({
        code: 'recipe_limit_exceeded',
        extras: { limit: 'versions', quota: 4 },
      });
      expect(await db().recipes.get(ALICE, { name: 'busy' })).toMatchObject({ version: 4 });
    });

    test('another account’s recipe is absent to get, replace and delete; delete removes every version and frees the name', async () => {
      const created = (await db().recipes.create(recipe('mine')))!;
      expect(await db().recipes.get(BOB, { id: created.id })).toBeUndefined();
      expect(await db().recipes.get(BOB, { name: 'mine' })).toBeUndefined();
      expect(await db().recipes.replace(BOB, { id: created.id }, steps(180))).toBeUndefined();
      expect(await db().recipes.delete(BOB, { name: 'mine' })).toBe(false);
      expect(await db().recipes.get(ALICE, { name: 'mine' })).toMatchObject({ version: 1 });
      const gone = (await db().recipes.create(recipe('gone')))!;
      await db().recipes.replace(ALICE, { id: gone.id }, steps(180));
      expect(await db().recipes.delete(ALICE, { id: gone.id })).toBe(true);
      expect(await db().recipes.get(ALICE, { id: gone.id, version: 1 })).toBeUndefined();
      expect(await db().recipes.delete(ALICE, { id: gone.id })).toBe(false);
      expect(await db().recipes.create(recipe('gone'))).toMatchObject({ version: 1 });
    });

    test('lists newest first at the newest version, in keyset pages; a foreign cursor is refused', async () => {
      const made = [];
      for (const name of ['a', 'b', 'c']) made.push((await db().recipes.create(recipe(name)))!);
      await db().recipes.replace(ALICE, { name: 'a' }, steps(180));
      await db().recipes.create(recipe('d', { accountId: BOB }));
      const page1 = await db().recipes.list(ALICE, { limit: 2 });
      expect(page1.recipes.map((r) => r.name)).toEqual(['c', 'b']);
      expect(page1.hasMore).toBe(true);
      const page2 = await db().recipes.list(ALICE, { limit: 2, startingAfter: made[1]!.id });
      expect(page2.recipes.map((r) => [r.name, r.version])).toEqual([['a', 2]]);
      expect(page2.hasMore).toBe(false);
      const bobs = await db().recipes.list(BOB, { limit: 10 });
      await expect(
        db().recipes.list(ALICE, { limit: 2, startingAfter: bobs.recipes[0]!.id }),
      ).rejects.toMatchObject({
        code: 'invalid_cursor',
      });
    });
  });
}
