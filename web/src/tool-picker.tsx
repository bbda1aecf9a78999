// The tool picker: every tool of the live catalogue under its group, searchable by name, title,
// description and keywords (synonyms such as `shrink` for compress).
import type { Tool, ToolList } from '@quire/client/browser';
import { useState } from 'preact/hooks';

const matches = (tool: Tool, words: string[]) => {
  const text = [
    tool.name,
    tool.title,
    tool.description,
    ...((tool as { keywords?: string[] }).keywords ?? []),
  ]
    .join(' ')
    .toLowerCase();
  return words.every((word) => text.includes(word));
};

/** Groups as the catalogue names them (`group`), in catalogue order. */
function grouped(tools: Tool[]): Array<[string, Tool[]]> {
  const groups = new Map<string, Tool[]>();
  for (const tool of tools) {
    const group = tool.group;
    groups.set(group, [...(groups.get(group) ?? []), tool]);
  }
  return [...groups];
}

export function ToolPicker({ catalogue }: { catalogue: ToolList }) {
  const [query, setQuery] = useState('');
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = catalogue.data.filter((tool) => matches(tool, words));
  return (
    <section aria-labelledby="tools-title">
      <h1 id="tools-title">What do you want to do?</h1>
      <label for="tool-search">Search tools</label>
      <input
        id="tool-search"
        type="search"
        value={query}
        aria-controls="tool-list"
        onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
      />
      <p class="muted" aria-live="polite">
        {shown.length} of {catalogue.data.length} tools
      </p>
      <div id="tool-list">
        {grouped(shown).map(([group, tools]) => (
          <section key={group} aria-label={group}>
            <h2>{group}</h2>
            <ul class="tools">
              {tools.map((tool) => (
                <li key={tool.name}>
                  <a href={`#/tools/${tool.name}`} class={tool.available ? 'tool' : 'tool unavailable'}>
                    <strong>{tool.title}</strong>
                    <span>{tool.description}</span>
                    {!tool.available && <em>Not available here: {tool.reason}</em>}
                  </a>
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </section>
  );
}
