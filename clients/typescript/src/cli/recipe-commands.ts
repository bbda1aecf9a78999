// `quirectl recipes list/show/save/delete` (docs/api.md §13): saved chains of steps on the server, run
// with `quirectl run --recipe NAME files…`. `save` makes version 1, or the next version of a recipe
// the account already has.
import type { Command } from 'commander';
import { QuireError } from '../errors.js';
import type { Recipe } from '../recipes.js';
import type { Step } from '../tool-options.js';
import { client } from './commands.js';
import { UsageError } from './exit-codes.js';
import { parseSteps } from './options.js';

const print = (json: boolean, value: unknown, text: () => string) =>
  process.stdout.write(`${json ? JSON.stringify(value) : text()}\n`);

const line = (recipe: Recipe) =>
  `${recipe.name.padEnd(24)} v${String(recipe.version).padEnd(4)} ${recipe.steps.map((s) => s.tool).join(' | ')}`;

export function addRecipeCommands(program: Command, json: () => boolean): void {
  const recipes = program.command('recipes').description('saved, versioned chains of steps');
  recipes
    .command('list')
    .description('every recipe at its newest version')
    .action(async () => {
      for await (const recipe of (await client()).recipes.iterate({ limit: 100 }))
        print(json(), recipe, () => line(recipe));
    });
  recipes
    .command('show <ref>')
    .description('a recipe by name or id, optionally @version (scan-cleanup@2)')
    .action(async (ref: string) => {
      const recipe = await (await client()).recipes.get(ref);
      print(json(), recipe, () => JSON.stringify(recipe, null, 2));
    });
  recipes
    .command('save <name>')
    .description('save steps under a name: version 1, or the next version if the name exists')
    .option(
      '--steps <chain>',
      "tools separated by |, each followed by option=value pairs: 'rotate angle=90 | compress'",
    )
    .option('--steps-json <json>', 'the steps as a JSON array of {tool, options}')
    .action(async (name: string, opts: { steps?: string; stepsJson?: string }) => {
      const quire = await client();
      const steps = await stepsOf(opts, async () => (await quire.tools.list()).data);
      const recipe = await quire.recipes.create({ name, steps }).catch(async (error: unknown) => {
        if (error instanceof QuireError && error.code === 'recipe_name_taken')
          return quire.recipes.replace(name, steps);
        throw error;
      });
      print(json(), recipe, () => `${recipe.name}@${recipe.version} saved (${recipe.id})`);
    });
  recipes
    .command('delete <ref>')
    .description('delete a recipe with every version')
    .action(async (ref: string) => {
      await (await client()).recipes.delete(ref);
      print(json(), { ref, deleted: true }, () => `${ref} deleted`);
    });
}

async function stepsOf(
  opts: { steps?: string; stepsJson?: string },
  catalogue: () => Promise<Parameters<typeof parseSteps>[1]>,
): Promise<Step[]> {
  if ((opts.steps === undefined) === (opts.stepsJson === undefined))
    throw new UsageError('give the steps as either --steps or --steps-json');
  if (opts.steps !== undefined) return parseSteps(opts.steps, await catalogue()) as Step[];
  try {
    return JSON.parse(opts.stepsJson ?? '') as Step[];
  } catch {
    throw new UsageError('--steps-json is not JSON');
  }
}
