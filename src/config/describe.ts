// Renders the settings table for the README from the schema itself, so the docs cannot drift.
import { sections } from './config.js';
import type { Setting } from './section.js';

export function settingsTable(): string {
  const rows = sections.flatMap(Object.entries<Setting>).map(([name, { schema }]) => {
    const s = schema as { default?: unknown; description?: string };
    const def =
      name === 'QUIRE_WORKER_CONCURRENCY' ? 'cores' : s.default === '' ? '' : `\`${String(s.default)}\``;
    return `| \`${name}\` | ${def} | ${s.description ?? ''} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}
