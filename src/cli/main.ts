#!/usr/bin/env node
// The `quire` command: serve (API + workers, the embedded default), api, worker, migrate, keys,
// accounts.
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/section.js';

const USAGE = `Usage: quire <command>

  serve                 API and workers in one process (SQLite + local disk by default)
  api                   HTTP API only
  worker                job workers only
  migrate               apply database migrations and exit
  keys create [--account ID] [--name N] [--scopes a,b] [--test] [--expires-days N]
  keys list [--account ID]
  keys revoke KEY_ID
  accounts create [--name N] [--plan P]
  accounts set-plan ACCOUNT_ID PLAN
  accounts list

Configuration comes from QUIRE_* environment variables (see README).`;

const HELP_FLAGS = ['--help', '-h'];

/** The usage lines of one command (`keys` → its three), or all of them for an unknown one. */
function usageOf(command: string): string {
  const lines = USAGE.split('\n').filter((line) => line.startsWith(`  ${command} `));
  if (lines.length === 0) return USAGE;
  return `Usage: quire ${command} …\n\n${lines.join('\n')}\n\nConfiguration comes from QUIRE_* environment variables (see README).`;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || HELP_FLAGS.includes(command) || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  // `quire keys create --help` asks for help, not for a key (nor a server for `serve --help`).
  if (rest.some((arg) => HELP_FLAGS.includes(arg))) {
    process.stdout.write(`${usageOf(command)}\n`);
    return 0;
  }
  // Loaded per command, so help and usage mistakes answer at once, without the whole service.
  const config = (await import('../config/config.js')).loadConfig();
  switch (command) {
    case 'serve':
      return (await import('./serve.js')).runServe(config);
    case 'api':
      return (await import('./serve.js')).runApi(config);
    case 'worker':
      return (await import('./serve.js')).runWorker(config);
    case 'migrate': {
      const { openDatabase } = await import('../store/open.js');
      const db = await openDatabase(config.databaseUrl, { poolMax: config.databasePoolMax });
      await db.migrate();
      await db.close();
      process.stdout.write('migrations applied\n');
      return 0;
    }
    case 'keys': {
      const { positionals, values } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          account: { type: 'string' },
          name: { type: 'string' },
          scopes: { type: 'string' },
          test: { type: 'boolean' },
          'expires-days': { type: 'string' },
        },
      });
      return (await import('./keys.js')).runKeys(config, positionals, values);
    }
    case 'accounts': {
      const { positionals, values } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { name: { type: 'string' }, plan: { type: 'string' } },
      });
      return (await import('./accounts.js')).runAccounts(config, positionals, values);
    }
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
  },
  (error: unknown) => {
    // A flag parseArgs does not know is a usage mistake: say so with the usage, no stack.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`quire: ${(error as Error).message}\n\n${usageOf(process.argv[2] ?? '')}\n`);
      process.exitCode = 2;
      return;
    }
    if (error instanceof ConfigError) process.stderr.write(`quire: configuration error: ${error.message}\n`);
    else process.stderr.write(`quire: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
