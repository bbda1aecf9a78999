#!/usr/bin/env node
// The `quire` command: serve (API + workers, the embedded default), api, worker, migrate, keys,
// accounts.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { ConfigError } from '../config/section.js';
import { runAccounts } from './accounts.js';
import { runKeys } from './keys.js';
import { runApi, runServe, runWorker } from './serve.js';

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

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return runServe(config);
    case 'api':
      return runApi(config);
    case 'worker':
      return runWorker(config);
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
      return runKeys(config, positionals, values);
    }
    case 'accounts': {
      const { positionals, values } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { name: { type: 'string' }, plan: { type: 'string' } },
      });
      return runAccounts(config, positionals, values);
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
    if (error instanceof ConfigError) process.stderr.write(`quire: configuration error: ${error.message}\n`);
    else process.stderr.write(`quire: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
