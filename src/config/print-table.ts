// `node dist/config/print-table.js` prints the README's configuration table.
import { settingsTable } from './describe.js';

process.stdout.write(`${settingsTable()}\n`);
