// docs/architecture.md's "Tools by owner" is true of the tree: every folder of src/tools is named
// there, a tool folder holds its tool.ts and helpers only it uses, shared/ holds helpers of two tools
// or more, and the layer table names every folder of src/.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '../..');
const toolsDir = path.join(repo, 'src/tools');
const doc = readFileSync(path.join(repo, 'docs/architecture.md'), 'utf8');
const ownersSection = doc.slice(
  doc.indexOf('## Tools by owner'),
  doc.indexOf('\n## ', doc.indexOf('## Tools by owner') + 1),
);
/** Folders of src/tools that are not a tool. */
const NOT_TOOLS = new Set(['framework', 'shared', 'lib']);

function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Every module of src/ with the modules of src/ it imports (relative specifiers, resolved). */
const importsOf = new Map(
  modules(path.join(repo, 'src')).map((file) => {
    const source = readFileSync(file, 'utf8');
    const targets = [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g)].map((m) =>
      path.resolve(path.dirname(file), `${m[1]}.ts`),
    );
    return [file, targets] as const;
  }),
);

function importersOf(file: string): string[] {
  return [...importsOf].filter(([, targets]) => targets.includes(file)).map(([importer]) => importer);
}

/** The tool a module of src/tools belongs to (`rotate` for rotate.ts, `compress` for compress/x.ts). */
function toolOf(file: string): string | undefined {
  const [first, second] = path.relative(toolsDir, file).split(path.sep);
  if (first === undefined || first.startsWith('..') || first === 'registry.ts') return undefined;
  if (second === undefined) return first.replace(/\.ts$/, '');
  return NOT_TOOLS.has(first) ? undefined : first;
}

/** The tools that use `file`, directly or through other helpers of shared/. */
function toolsUsing(file: string, seen = new Set<string>()): Set<string> {
  const users = new Set<string>();
  for (const importer of importersOf(file)) {
    if (seen.has(importer)) continue;
    seen.add(importer);
    const tool = toolOf(importer);
    if (tool) users.add(tool);
    else if (importer.startsWith(path.join(toolsDir, 'shared'))) {
      for (const user of toolsUsing(importer, seen)) users.add(user);
    }
  }
  return users;
}

describe('src/tools by owner (docs/architecture.md)', () => {
  it('names every folder of src/tools in the "Tools by owner" section', () => {
    for (const folder of folders(toolsDir)) expect(ownersSection).toContain(`\`${folder}/\``);
  });

  it('gives each tool folder a tool.ts that the registry lists', () => {
    const registry = readFileSync(path.join(toolsDir, 'registry.ts'), 'utf8');
    for (const folder of folders(toolsDir).filter((name) => !NOT_TOOLS.has(name))) {
      expect(readdirSync(path.join(toolsDir, folder))).toContain('tool.ts');
      expect(registry).toContain(`'./${folder}/tool.js'`);
    }
  });

  it("keeps a tool folder's helpers to that tool alone", () => {
    for (const folder of folders(toolsDir).filter((name) => !NOT_TOOLS.has(name))) {
      for (const helper of modules(path.join(toolsDir, folder)).filter((f) => !f.endsWith('/tool.ts'))) {
        const outside = importersOf(helper).filter((importer) => toolOf(importer) !== folder);
        expect(outside, `${helper} is used outside ${folder}/`).toEqual([]);
      }
    }
  });

  it('holds in shared/ only helpers that two tools or more use', () => {
    const helpers = modules(path.join(toolsDir, 'shared'));
    expect(helpers.length).toBeGreaterThan(0);
    for (const helper of helpers) {
      expect(
        toolsUsing(helper).size,
        `${helper} is used by ${[...toolsUsing(helper)]}`,
      ).toBeGreaterThanOrEqual(2);
    }
  });

  it('lists every folder of src/ in the layer table', () => {
    const rows = [...doc.matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((m) => m[1]);
    expect(new Set(rows)).toEqual(new Set(folders(path.join(repo, 'src'))));
  });
});
