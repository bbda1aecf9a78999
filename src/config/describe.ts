// Renders the settings table for the README from the schema itself, so the docs cannot drift.
import { sections } from './config.js';
import type { Setting } from './section.js';

/** Settings whose default is the machine's core count, shown as such rather than this machine's. */
const PER_CORE = new Set(['QUIRE_WORKER_CONCURRENCY', 'QUIRE_BROWSER_POOL_SIZE']);

export function settingsTable(): string {
  const rows = sections.flatMap(Object.entries<Setting>).map(([name, { schema }]) => {
    const s = schema as { default?: unknown; description?: string };
    const def = PER_CORE.has(name) ? 'cores' : s.default === '' ? '' : `\`${String(s.default)}\``;
    return `| \`${name}\` | ${def} | ${s.description ?? ''} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}
