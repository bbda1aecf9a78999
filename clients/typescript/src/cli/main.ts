#!/usr/bin/env node
// quirectl: the Quire command line for people (README "Command line"). Named apart from the
// operators' `quire` so both can be installed. Tool commands come from the server's catalogue.
import { Command, CommanderError } from 'commander';
import type { Tool } from '../resources.js';
import { addFixedCommands, client } from './commands.js';
import { describe, EXIT, exitCodeOf } from './exit-codes.js';
import { addRecipeCommands } from './recipe-commands.js';
import { addToolCommands } from './tool-commands.js';

const FIXED = new Set(['login', 'tools', 'jobs', 'batches', 'uploads', 'recipes', 'config-path']);

/** The catalogue, needed unless the command is a fixed one; `--help` alone shows what it can. */
async function catalogueFor(argv: string[]): Promise<Tool[]> {
  const command = argv.find((a) => !a.startsWith('-'));
  if (command !== undefined && FIXED.has(command)) return [];
  if (command === undefined && !process.env.QUIRE_URL) {
    // `quirectl --help` before login: the fixed commands only.
    try {
      return (await (await client()).tools.list()).data;
    } catch {
      return [];
    }
  }
  return (await (await client()).tools.list()).data;
}

async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.ok;
  const program = new Command('quirectl')
    .description('Process PDFs with a Quire server: `quirectl compress report.pdf --level high -o small.pdf`')
    .option('--json', 'one JSON object per job (or item) on stdout')
    .showHelpAfterError()
    .exitOverride();
  addFixedCommands(program, () => Boolean(program.opts().json));
  addRecipeCommands(program, () => Boolean(program.opts().json));
  addToolCommands(program, await catalogueFor(argv), (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every other parse error is bad input.
      return error.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    }
    throw error;
  }
  return code;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${describe(error)}\n`);
    process.exitCode = exitCodeOf(error);
  },
);
