// The SDK's browser entry imports no `node:` module anywhere in its graph (what makes it load in a
// page), and the sign-in link `quire serve` prints carries the key in the fragment only.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { signInLink } from '../../src/cli/sign-in-link.js';
import { loadConfig } from '../../src/config/config.js';
import { webAppPolicy } from '../../src/http/web-app.js';
import { repoRoot } from '../support/corpus.js';

/** Every relative module the file imports at run time (type-only imports are erased), transitively. */
function runtimeGraph(entry: string, seen = new Map<string, string[]>()): Map<string, string[]> {
  if (seen.has(entry)) return seen;
  const source = readFileSync(entry, 'utf8');
  const specifiers = [...source.matchAll(/^(?:import|export)\s+(?!type\s)[^'";]*?from\s+'([^']+)'/gm)].map(
    (m) => m[1]!,
  );
  seen.set(entry, specifiers);
  for (const specifier of specifiers.filter((s) => s.startsWith('.')))
    runtimeGraph(path.resolve(path.dirname(entry), specifier.replace(/\.js$/, '.ts')), seen);
  return seen;
}

describe('the SDK browser entry', () => {
  it('reaches no node: module through any import it keeps at run time', () => {
    const graph = runtimeGraph(path.join(repoRoot, 'clients/typescript/src/browser.ts'));
    expect(graph.size).toBeGreaterThan(5);
    const nodeImports = [...graph].flatMap(([file, specifiers]) =>
      specifiers.filter((s) => s.startsWith('node:')).map((s) => `${path.basename(file)}: ${s}`),
    );
    expect(nodeImports).toEqual([]);
    // The Node entry does use them: the check would see them.
    const node = runtimeGraph(path.join(repoRoot, 'clients/typescript/src/index.ts'));
    expect([...node.values()].flat().some((s) => s.startsWith('node:'))).toBe(true);
  });
});

describe('signInLink', () => {
  const config = (env: Record<string, string> = {}) => loadConfig({ QUIRE_DATA_DIR: '/tmp/x', ...env });

  it.each([
    [{}, 8080, 'http://127.0.0.1:8080/#key=qk_live_a'],
    [{ QUIRE_HOST: '0.0.0.0' }, 9000, 'http://127.0.0.1:9000/#key=qk_live_a'],
    [{ QUIRE_HOST: '::1' }, 9000, 'http://[::1]:9000/#key=qk_live_a'],
    [
      { QUIRE_PUBLIC_BASE_URL: 'https://pdf.example.com/quire/' },
      8080,
      'https://pdf.example.com/quire/#key=qk_live_a',
    ],
  ])('with %j on port %i links %s', (env, port, link) => {
    expect(signInLink(config(env), port, 'qk_live_a')).toBe(link);
  });
});

describe('the web app page policy', () => {
  it('allows no inline script or eval, and names the public origin for download links', () => {
    expect(webAppPolicy('')).toMatch(/script-src 'self';/);
    expect(webAppPolicy('')).not.toMatch(/unsafe/);
    expect(webAppPolicy('https://pdf.example.com/quire')).toMatch(
      /connect-src 'self' https:\/\/pdf\.example\.com;/,
    );
  });
});

describe('the tool groups of docs/api.md §3', () => {
  it('list every tool under the group its definition names', async () => {
    const { tools } = await import('../../src/tools/registry.js');
    const doc = readFileSync(path.join(repoRoot, 'docs/api.md'), 'utf8');
    const table = doc.slice(doc.indexOf('| group | tools | engines |'));
    const rows = table
      .split('\n')
      .slice(2)
      .filter((line) => line.startsWith('| '));
    const documented = rows.flatMap((row) => {
      const [group = '', names = ''] = row
        .split('|')
        .slice(1, 3)
        .map((cell) => cell.trim());
      return [...names.matchAll(/`([a-z-]+)`/g)].map((m) => `${m[1]}: ${group.replace(/ \(.*\)$/, '')}`);
    });
    expect(documented.sort()).toEqual(tools.map((tool) => `${tool.name}: ${tool.group}`).sort());
  });
});
