// docs/architecture.md against the code: the rule that only the job services write job state fails
// on a planted import, the call path of a job names real files, real imports, allowed steps and
// never returns to a folder it left, and the interfaces handed down it carry no callbacks up.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { cruise, type IForbiddenRuleType, type IViolation } from 'dependency-cruiser';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';

const require = createRequire(import.meta.url);
/** The rules as written there (each `to` a plain object, which the library's union type hides). */
type Rule = IForbiddenRuleType & { to: { path?: string } };
const config = require(path.join(repoRoot, '.dependency-cruiser.cjs')) as { forbidden: Rule[] };
const doc = readFileSync(path.join(repoRoot, 'docs/architecture.md'), 'utf8');

/** Cruises a throwaway tree of `files` (path under the tree → source) with the real rules. */
async function violationsIn(files: Record<string, string>): Promise<IViolation[]> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'quire-arch-'));
  planted.push(root);
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), source);
  }
  const result = await cruise(['src'], {
    baseDir: root,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    tsPreCompilationDeps: true,
  });
  if (typeof result.output === 'string') throw new Error('expected a cruise result');
  return result.output.summary.violations;
}
const planted: string[] = [];
afterAll(() => {
  for (const root of planted) rmSync(root, { recursive: true, force: true });
});

const writers = 'export interface JobStore { create(): Promise<void> }\n';
const useWriters = (from: string) =>
  `import type { JobStore } from '${from}';\nexport type Held = JobStore;\n`;

describe('services-write-job-state (.dependency-cruiser.cjs)', () => {
  it('fails on a route, a worker module or a webhook module importing the job stores with their writes', async () => {
    const violations = await violationsIn({
      'src/store/job-stores.ts': writers,
      'src/store/open.ts': 'export const openDatabase = () => undefined;\n',
      'src/http/routes/planted.ts': useWriters('../../store/job-stores.js'),
      'src/jobs/run-job.ts':
        "import { openDatabase } from '../store/open.js';\nexport const o = openDatabase;\n",
      'src/webhooks/planted.ts': useWriters('../store/job-stores.js'),
    });
    const caught = violations
      .filter((v) => v.rule.name === 'services-write-job-state')
      .map((v) => `${v.from} -> ${v.to}`)
      .sort();
    expect(caught).toEqual([
      'src/http/routes/planted.ts -> src/store/job-stores.ts',
      'src/jobs/run-job.ts -> src/store/open.ts',
      'src/webhooks/planted.ts -> src/store/job-stores.ts',
    ]);
  });

  it('lets the job services, the store itself and the composition root import them', async () => {
    const violations = await violationsIn({
      'src/store/job-stores.ts': writers,
      'src/store/sql/stores.ts': useWriters('../job-stores.js'),
      'src/jobs/job-service.ts': useWriters('../store/job-stores.js'),
      'src/jobs/batch-service.ts': useWriters('../store/job-stores.js'),
      'src/jobs/services.ts': useWriters('../store/job-stores.js'),
      'src/cli/runtime.ts': useWriters('../store/job-stores.js'),
    });
    expect(violations.filter((v) => v.rule.name === 'services-write-job-state')).toEqual([]);
  });
});

interface Hop {
  from: string;
  to: string;
  /** `→`: the caller imports the callee; `⇢`: a value handed in (an implementation, a tool). */
  imported: boolean;
}

/** The lines of the fenced block under "## The call path of a job". */
function callPath(): { name: string; files: string[]; hops: Hop[] }[] {
  const section = doc.split('## The call path of a job')[1]?.split('\n## ')[0] ?? '';
  const block = /```text\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .trim()
    .split('\n')
    .map((line) => {
      const [name, chain] = line.split(/:\s+/, 2) as [string, string];
      const parts = chain.split(/\s+([→⇢])\s+/);
      const files = parts.filter((_, i) => i % 2 === 0);
      const hops = files
        .slice(1)
        .map((to, i) => ({ from: files[i]!, to, imported: parts[2 * i + 1] === '→' }));
      return { name, files, hops };
    });
}

const folderOf = (file: string) => file.split('/')[0]!;

/** Folder → folders it must not import, from the `layer-*` rules (cli has none: anything). */
function forbiddenFolders(): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const rule of config.forbidden) {
    const folder = /^layer-(.+)$/.exec(rule.name ?? '')?.[1];
    const to = /^\^src\/\((.*)\)\/$/.exec(String(rule.to.path ?? ''))?.[1];
    if (folder && to !== undefined) map.set(folder, to.split('|'));
  }
  return map;
}

/** The modules `file` imports, as paths under src/ (`.js` specifiers name the `.ts` sources). */
function importsOf(file: string): string[] {
  const source = readFileSync(path.join(repoRoot, 'src', file), 'utf8');
  return [...source.matchAll(/from '(\.[^']+)'/g)].map((m) =>
    path.posix.join(path.posix.dirname(file), m[1]!).replace(/\.js$/, '.ts'),
  );
}

describe('the call path of a job (docs/architecture.md)', () => {
  const lines = callPath();

  it('runs from the route through the engine to the download', () => {
    expect(lines.map((l) => l.name)).toEqual(
      expect.arrayContaining(['receive', 'create', 'claim', 'run', 'finish', 'link', 'download']),
    );
    expect(lines.find((l) => l.name === 'run')?.files).toContain('process/runner.ts');
  });

  it('names only files that exist under src/', () => {
    const files = lines.flatMap((l) => l.files);
    expect(files.filter((file) => !existsSync(path.join(repoRoot, 'src', file)))).toEqual([]);
  });

  it('draws → only where the caller imports the callee', () => {
    const hops = lines.flatMap((l) => l.hops).filter((h) => h.imported);
    expect(hops.length).toBeGreaterThan(10);
    expect(hops.filter((h) => !importsOf(h.from).includes(h.to))).toEqual([]);
  });

  it('steps only within a folder or down to one the layer rules allow', () => {
    const forbidden = forbiddenFolders();
    const upward = lines
      .flatMap((l) => l.hops)
      .filter((h) => (forbidden.get(folderOf(h.from)) ?? []).includes(folderOf(h.to)));
    expect(upward).toEqual([]);
  });

  it('never goes back to a folder it left', () => {
    const returns = lines.filter((line) => {
      const folders = line.files.map(folderOf).filter((f, i, all) => i === 0 || f !== all[i - 1]);
      return new Set(folders).size !== folders.length;
    });
    expect(returns.map((l) => l.name)).toEqual([]);
  });
});

/** Whether a type node is, or holds (a union, an optional), a function type. */
function holdsFunction(node: ts.Node | undefined): boolean {
  if (!node) return false;
  if (ts.isFunctionTypeNode(node) || ts.isConstructorTypeNode(node)) return true;
  return ts.forEachChild(node, (child) => holdsFunction(child) || undefined) ?? false;
}

/**
 * The members of interface `name` in `source` that hand a function over: for an options bag
 * (`bag`), every method and every property of function type (a callback the callee could call
 * back up with); for a state API, every method parameter of function type.
 */
function callbacksIn(source: string, name: string, kind: 'bag' | 'state'): string[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const found = file.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!found || !ts.isInterfaceDeclaration(found)) throw new Error(`no interface ${name}`);
  return found.members.flatMap((member) => {
    const id = member.name?.getText(file) ?? '?';
    if (ts.isMethodSignature(member)) {
      if (kind === 'bag') return [id];
      return member.parameters.some((p) => holdsFunction(p.type)) ? [id] : [];
    }
    if (ts.isPropertySignature(member) && holdsFunction(member.type)) return [id];
    return [];
  });
}

const sourceOf = (file: string) => readFileSync(path.join(repoRoot, 'src', file), 'utf8');

/**
 * What is handed down the call path, and the callbacks each may carry with the reason: a callback's
 * code must live in the callee's folder or below it, or the call goes back up (docs/architecture.md,
 * "Events come back up as state").
 */
const DOWNWARD: [file: string, name: string, kind: 'bag' | 'state', allowed: string[]][] = [
  ['process/runner.ts', 'RunOptions', 'bag', []],
  ['engines/call-options.ts', 'EngineCallOptions', 'bag', []],
  ['engines/call-options.ts', 'EngineDefaults', 'bag', []],
  ['engines/call-options.ts', 'ProgressTracker', 'state', []],
  ['tools/framework/types.ts', 'RunContext', 'bag', []],
  ['tools/framework/progress.ts', 'ToolProgress', 'state', []],
  ['tools/framework/progress.ts', 'ProgressReporter', 'state', []],
  // run-job.ts's RunningStep: jobs/ to jobs/, a call that stays in its folder.
  ['jobs/steps.ts', 'StepsContext', 'bag', ['onStep']],
];

describe('the interfaces handed down the call path (docs/architecture.md)', () => {
  it.each(DOWNWARD)('%s %s carries no callback up', (file, name, kind, allowed) => {
    expect(callbacksIn(sourceOf(file), name, kind)).toEqual(allowed);
  });

  it('finds a planted line callback in the runner options and a planted emit in the reporter', () => {
    const runner = `export interface RunOptions {
      cwd: string;
      signal?: AbortSignal;
      onStdoutLine?: (line: string) => void;
      onFinished?: ((ms: number) => void) | undefined;
      observe(ms: number): void;
    }`;
    expect(callbacksIn(runner, 'RunOptions', 'bag')).toEqual(['onStdoutLine', 'onFinished', 'observe']);
    const reporter = `export interface ToolProgress {
      step(name: string): void;
      fraction(done: number, total: number, emit: (percent: number) => void): void;
    }`;
    expect(callbacksIn(reporter, 'ToolProgress', 'state')).toEqual(['fraction']);
  });
});
