// One command per tool of the live catalogue (GET /api/v1/tools), with a flag per option: a tool the
// server gains shows up here without a new quirectl. Plus `run --steps` for chains and `run --recipe`.
import type { Command } from 'commander';
import type { Tool } from '../resources.js';
import type { Step } from '../tool-options.js';
import { client } from './commands.js';
import { UsageError } from './exit-codes.js';
import { collectOptions, optionsOf, parseSteps } from './options.js';
import { reporterFor } from './progress.js';
import { runJobs } from './run-jobs.js';

interface CommonFlags {
  output?: string;
  options?: string;
  concurrency: string;
  json?: boolean;
}

function common(command: Command): Command {
  return command
    .option('-o, --output <path>', 'the result file, or a directory for several results')
    .option('--options <json>', 'options as JSON (merged under the flags)')
    .option('--concurrency <n>', 'jobs at a time when each file is its own job', '4')
    .option('--json', 'one JSON object per job on stdout');
}

export function addToolCommands(program: Command, catalogue: Tool[], exit: (code: number) => void): void {
  for (const tool of catalogue) {
    const command = common(
      program
        .command(`${tool.name} <files...>`)
        .description(`${tool.title}${tool.available ? '' : ' (unavailable on this server)'}`),
    );
    for (const option of optionsOf(tool)) command.addOption(option);
    command.action(async (files: string[], flags: CommonFlags & Record<string, unknown>) => {
      const json = Boolean(flags.json ?? program.opts().json);
      exit(
        await runJobs(await client(), {
          tool: tool.name,
          options: collectOptions(tool, flags, flags.options),
          files,
          together: tool.inputs.max_files > 1,
          concurrency: Number(flags.concurrency),
          json,
          reporter: reporterFor({ json, tty: Boolean(process.stderr.isTTY) }),
          ...(flags.output === undefined ? {} : { output: flags.output }),
        }),
      );
    });
  }

  common(
    program
      .command('run <files...>')
      .description(
        "run a chain of steps (--steps 'rotate angle=90 | compress level=high') or a saved recipe (--recipe NAME)",
      ),
  )
    .option('--steps <chain>', 'tools separated by |, each followed by option=value pairs')
    .option('--recipe <ref>', 'a saved recipe by name or id, optionally @version (scan-cleanup@2)')
    .action(async (files: string[], flags: CommonFlags & { steps?: string; recipe?: string }) => {
      const json = Boolean(flags.json ?? program.opts().json);
      if ((flags.steps === undefined) === (flags.recipe === undefined))
        throw new UsageError('give either --steps or --recipe');
      const quire = await client();
      // The first step decides whether the files go to one job (merge) or one job each.
      const steps = flags.steps === undefined ? undefined : (parseSteps(flags.steps, catalogue) as Step[]);
      const firstTool = steps ? steps[0]?.tool : (await quire.recipes.get(flags.recipe ?? '')).steps[0]?.tool;
      const first = catalogue.find((t) => t.name === firstTool);
      exit(
        await runJobs(quire, {
          ...(steps ? { steps } : { recipe: flags.recipe ?? '' }),
          files,
          together: (first?.inputs.max_files ?? 1) > 1,
          concurrency: Number(flags.concurrency),
          json,
          reporter: reporterFor({ json, tty: Boolean(process.stderr.isTTY) }),
          ...(flags.output === undefined ? {} : { output: flags.output }),
        }),
      );
    });
}
