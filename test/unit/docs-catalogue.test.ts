// The docs list what the code has: the tools of docs/tools.md and docs/api.md §3 are the registry's,
// and the codes of docs/errors.md are the error catalogue's, with its statuses and retry flags.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCatalogue } from '../../src/errors/catalogue.js';
import { tools } from '../../src/tools/registry.js';
import { repoRoot } from '../support/corpus.js';

const doc = (name: string) => readFileSync(path.join(repoRoot, 'docs', name), 'utf8');
const codeNames = (text: string) => [...text.matchAll(/`([a-z][a-z0-9_-]*)`/g)].map((m) => m[1]!);
const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

/** The text from the heading `title` to the next heading of the same level or above. */
function section(text: string, title: string): string {
  const level = title.match(/^#+/)![0].length;
  const start = text.indexOf(`\n${title}\n`);
  if (start < 0) throw new Error(`no heading "${title}"`);
  const rest = text.slice(start + title.length + 2);
  const next = rest.search(new RegExp(`\\n#{1,${level}} `));
  return next < 0 ? rest : rest.slice(0, next);
}

/** Rows of the markdown tables in `text`, as cells, without header and separator rows. */
function tableRows(text: string): string[][] {
  const rows = text
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const separator = (cells?: string[]) => /^:?-+:?$/.test(cells?.[0] ?? '');
  return rows.filter((cells, i) => !separator(cells) && !separator(rows[i + 1]));
}

describe('tool lists in the docs', () => {
  const registry = sorted(tools.map((tool) => tool.name));

  it('docs/tools.md has one section per registered tool and names them all up front', () => {
    const tools = doc('tools.md');
    const headings = [...tools.matchAll(/^## ([a-z][a-z0-9-]*)$/gm)].map((m) => m[1]!);
    expect(sorted(headings)).toEqual(registry);
    expect(headings).toHaveLength(registry.length);
    const intro = tools.split('\n## ')[0]!;
    expect(sorted(codeNames(intro).filter((name) => registry.includes(name)))).toEqual(registry);
    expect(intro).toContain(`Quire has ${registry.length} tools.`);
  });

  it('docs/api.md §3 lists every registered tool, and §2 counts them', () => {
    const api = doc('api.md');
    const catalogue = section(api, '## 3. Tools — `GET /api/v1/tools`');
    const listed = tableRows(catalogue.split('The tools (each explained')[1]!).flatMap((cells) =>
      codeNames(cells[1]!),
    );
    expect(sorted(listed)).toEqual(registry);
    expect(listed).toHaveLength(registry.length);
    expect(section(api, '## 2. Jobs')).toContain(`the ${registry.length} tools of`);
  });
});

describe('error codes in docs/errors.md', () => {
  const errors = doc('errors.md');
  const requestRows = tableRows(section(errors, '## Request errors'));
  const jobRows = tableRows(section(errors, '## Job errors'));
  const retryable = (cell: string) => /yes/.test(cell);

  it('documents exactly the catalogue’s codes', () => {
    const documented = [...requestRows, ...jobRows].flatMap((cells) => codeNames(cells[0]!));
    expect(sorted(documented)).toEqual(sorted(Object.keys(errorCatalogue)));
  });

  it('gives each request error the catalogue’s status and retry flag', () => {
    for (const [codeCell, status, retry] of requestRows) {
      for (const code of codeNames(codeCell!)) {
        const spec = errorCatalogue[code as keyof typeof errorCatalogue];
        expect({ code, status: Number(status), retryable: retryable(retry!) }).toEqual({
          code,
          status: spec.status,
          retryable: spec.retryable,
        });
      }
    }
  });

  it('gives each job error the catalogue’s retry flag', () => {
    for (const [codeCell, retry] of jobRows) {
      for (const code of codeNames(codeCell!)) {
        const spec = errorCatalogue[code as keyof typeof errorCatalogue];
        expect({ code, retryable: retryable(retry!) }).toEqual({ code, retryable: spec.retryable });
      }
    }
  });
});
