// The generator matrix (issue 27): eight client generators read the live /openapi.json of a real
// server; their output compiles or type-checks (tsc --strict, mypy, go build, javac); and a small
// program per generator (test/clients/matrix/) runs a compress job and a chained job (rotate, then
// compress) to downloaded PDFs, and runJob (POST /run) to the merged PDF its answer carries. Generated once per run, compiled once per toolchain, run in parallel.
// Versions are pinned: the npm generators in package.json, openapi-python-client in the venv and
// openapi-generator's jar (Maven Central) that scripts/setup.sh --with-test-tools installs.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile, repoRoot } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  clientsDir,
  OPENAPI_GENERATOR_JAR,
  openapiToolsBin,
  type ProgramRun,
  runProgram,
  samplePdf,
} from './consumer.js';

const matrixDir = path.join(clientsDir, 'matrix');
const programs = path.join(repoRoot, 'test', 'clients', 'matrix');
const bin = (name: string) => path.join(repoRoot, 'node_modules', '.bin', name);
/** mypy's cache outlives the run: typeshed's stubs are the slow part and never change. */
const mypyCache = path.join(clientsDir, 'mypy-cache');
const SAMPLE_PAGES = 4;
const LONG = 15 * 60_000;
/** A program's two jobs take seconds; the bound is for both cores busy with other suites. */
const PROGRAM_MS = 240_000;

type Generator =
  | 'openapi-typescript'
  | 'hey-api'
  | 'orval'
  | 'typescript-fetch'
  | 'openapi-python-client'
  | 'openapi-generator-python'
  | 'openapi-generator-go'
  | 'openapi-generator-java';

let server: TestServer;
const generated = new Map<Generator, ProgramRun>();
const compiled = new Map<Generator, ProgramRun>();
/** How each generator's program is started: file and arguments before the common ones. */
const launch = new Map<Generator, { file: string; args: string[]; env?: Record<string, string> }>();

const ok: ProgramRun = { code: 0, stdout: '', stderr: '' };
const dir = (name: string) => path.join(matrixDir, name);

/**
 * openapi-typescript with two documented options: `format: binary` as Blob (its default is string),
 * and options with a default left optional (by default it makes them required, fit for answers).
 */
async function generateOpenapiTypescript(url: string): Promise<ProgramRun> {
  const nodes = await openapiTS(new URL(url), {
    defaultNonNullable: false,
    transform: (schema) =>
      schema.format === 'binary' ? ts.factory.createTypeReferenceNode('Blob') : undefined,
  });
  await mkdir(dir('openapi-typescript'), { recursive: true });
  await writeFile(path.join(dir('openapi-typescript'), 'schema.d.ts'), astToString(nodes));
  return ok;
}

/**
 * orval's fetch client takes its base URL from the config (`output.baseUrl`), not at run time, and
 * its answers' bodies from the mutator named there.
 */
async function generateOrval(url: string): Promise<ProgramRun> {
  const config = path.join(matrixDir, 'orval.config.cjs');
  // Its documented custom fetch (orval-fetch.ts): the built-in one parses every body as JSON.
  const mutator = { path: path.join(programs, 'ts', 'orval-fetch.ts'), name: 'quireFetch' };
  const output = {
    target: path.join(dir('orval'), 'quire.ts'),
    client: 'fetch',
    baseUrl: server.url,
    override: { mutator },
  };
  await writeFile(
    config,
    `module.exports = ${JSON.stringify({ quire: { input: { target: url }, output } })};\n`,
  );
  return runProgram(bin('orval'), ['--config', config]);
}

/** openapi-generator's four clients in one JVM (its batch command), each with its defaults. */
async function generateWithOpenapiGenerator(url: string): Promise<ProgramRun> {
  const configs = await Promise.all(
    (['python', 'typescript-fetch', 'go', 'java'] as const).map(async (name) => {
      const file = path.join(matrixDir, `openapi-generator-${name}.json`);
      await writeFile(file, JSON.stringify({ generatorName: name, inputSpec: url, outputDir: dir(name) }));
      return file;
    }),
  );
  return runProgram('java', ['-jar', OPENAPI_GENERATOR_JAR, 'batch', '--fail-fast', ...configs], {
    timeoutMs: LONG,
  });
}

async function generateAll(url: string): Promise<void> {
  const openapiGenerator = generateWithOpenapiGenerator(url);
  const [openapiTypescript, heyApi, orval, pythonClient] = await Promise.all([
    generateOpenapiTypescript(url),
    runProgram(bin('openapi-ts'), ['-i', url, '-o', dir('hey-api')]),
    generateOrval(url),
    runProgram(
      path.join(openapiToolsBin, 'openapi-python-client'),
      ['generate', '--url', url, '--output-path', dir('openapi-python-client')].concat([
        '--config',
        path.join(repoRoot, 'test', 'clients', 'python', 'generator.yaml'),
      ]),
      // The generator formats its output with ruff, installed beside it.
      { env: { PATH: `${openapiToolsBin}:${process.env.PATH}` } },
    ),
  ]);
  const fromJar = await openapiGenerator;
  generated.set('openapi-typescript', openapiTypescript);
  generated.set('hey-api', heyApi);
  generated.set('orval', orval);
  generated.set('openapi-python-client', pythonClient);
  for (const name of ['typescript-fetch', 'python', 'go', 'java']) {
    generated.set((name === 'typescript-fetch' ? name : `openapi-generator-${name}`) as Generator, fromJar);
  }
}

/**
 * One tsc per module system, both strict: the ESM programs (openapi-fetch, hey-api) and the
 * CommonJS ones (typescript-fetch and orval's mutator import write extensionless imports). A generator's verdict is the
 * diagnostics naming its program or its generated code.
 */
async function compileTypescript(): Promise<void> {
  const groups = [
    { config: 'tsconfig.json', type: 'module', names: ['openapi-typescript', 'hey-api'] as const },
    // orval imports its custom fetch without an extension, as CommonJS resolves it.
    { config: 'tsconfig.cjs.json', type: 'commonjs', names: ['typescript-fetch', 'orval'] as const },
  ];
  const program = { 'openapi-typescript': 'openapi-fetch', 'hey-api': 'hey-api', orval: 'orval' } as const;
  await Promise.all(
    groups.map(async ({ config, type, names }) => {
      const out = path.join(matrixDir, `out-${type}`);
      await mkdir(out, { recursive: true });
      await writeFile(path.join(out, 'package.json'), JSON.stringify({ type }));
      const tsc = await runProgram(bin('tsc'), ['-p', path.join(programs, 'ts', config)], {
        timeoutMs: LONG,
      });
      const lines = (tsc.stdout + tsc.stderr).split('\n');
      for (const name of names) {
        const source = name === 'typescript-fetch' ? name : program[name];
        const own = lines.filter((l) => l.includes(`/${name}/`) || l.includes(`ts/${source}.ts`));
        compiled.set(name, { code: own.length === 0 ? 0 : 1, stdout: own.join('\n'), stderr: '' });
        const js = path.join(out, 'test', 'clients', 'matrix', 'ts', `${source}.js`);
        launch.set(name, { file: process.execPath, args: [js] });
      }
    }),
  );
}

/** mypy over the program and the package it imports, as PYTHONPATH finds it. */
async function mypy(name: Generator, packageDir: string, script: string, only?: string[]) {
  const python = path.join(openapiToolsBin, 'python');
  const env = { PYTHONPATH: packageDir, PYTHONDONTWRITEBYTECODE: '1' };
  const run = await runProgram(
    path.join(openapiToolsBin, 'mypy'),
    ['--cache-dir', mypyCache, '--no-error-summary', ...(only ?? []), path.join(programs, script)],
    { env: { ...env, MYPYPATH: packageDir }, timeoutMs: LONG },
  );
  compiled.set(name, run);
  launch.set(name, { file: python, args: [path.join(programs, script)], env });
}

async function compileGo(): Promise<void> {
  const program = path.join(matrixDir, 'go-program');
  await mkdir(program, { recursive: true });
  await writeFile(path.join(program, 'main.go'), await readFile(path.join(programs, 'go', 'main.go')));
  // The generated module under its placeholder path (openapi-generator's default), taken from disk.
  const module = 'github.com/GIT_USER_ID/GIT_REPO_ID';
  await writeFile(
    path.join(program, 'go.mod'),
    `module quire.test/generator-matrix\n\ngo 1.23\n\nrequire ${module} v0.0.0\n\nreplace ${module} => ../go\n`,
  );
  const run = await runProgram('go', ['build', '-o', 'program', '.'], {
    cwd: program,
    // -mod=mod records the generated module's requirements (from the module cache setup.sh fills).
    env: { GOFLAGS: '-mod=mod' },
    timeoutMs: LONG,
  });
  compiled.set('openapi-generator-go', run);
  launch.set('openapi-generator-go', { file: path.join(program, 'program'), args: [] });
}

async function compileJava(): Promise<void> {
  const project = dir('java');
  const classpathFile = path.join(project, 'classpath.txt');
  // The generated pom's dependencies, resolved offline from ~/.m2 (scripts/setup.sh fills it).
  const resolve = await runProgram(
    'mvn',
    ['-o', '-q', '-B', 'dependency:build-classpath', `-Dmdep.outputFile=${classpathFile}`],
    { cwd: project, timeoutMs: LONG },
  );
  if (resolve.code !== 0) {
    compiled.set('openapi-generator-java', resolve);
    return;
  }
  const classpath = (await readFile(classpathFile, 'utf8')).trim();
  const sources = await javaSources(path.join(project, 'src', 'main', 'java'));
  const classes = path.join(matrixDir, 'java-classes');
  const javac = await runProgram(
    'javac',
    ['-nowarn', '-encoding', 'UTF-8', '-cp', classpath, '-d', classes, ...sources].concat(
      path.join(programs, 'java', 'QuireJobs.java'),
    ),
    { timeoutMs: LONG },
  );
  compiled.set('openapi-generator-java', {
    ...javac,
    stderr: javac.stderr.replace(/^Note: .*\n/gm, ''),
  });
  launch.set('openapi-generator-java', {
    file: 'java',
    args: ['-cp', `${classes}:${classpath}`, 'QuireJobs'],
  });
}

async function javaSources(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.java'))
    .map((e) => path.join(e.parentPath, e.name));
}

beforeAll(async () => {
  server = await startTestServer();
  await rm(matrixDir, { recursive: true, force: true });
  await mkdir(matrixDir, { recursive: true });
  await generateAll(`${server.url}/openapi.json`);
  await Promise.all([
    compileTypescript(),
    mypy('openapi-python-client', dir('openapi-python-client'), 'openapi_python_client.py', [
      path.join(dir('openapi-python-client'), 'quire_client'),
    ]),
    // The program, with the package as it imports it: openapi-generator's own models fail mypy
    // (a field named `copy` shadows pydantic's BaseModel.copy in ProtectOptionsPermissions).
    mypy('openapi-generator-python', dir('python'), 'openapi_generator_python.py', [
      '--follow-imports=silent',
    ]),
    compileGo(),
    compileJava(),
  ]);
}, LONG);
afterAll(() => server?.close());

/** Each page's rotation as pdfinfo reports it. */
async function rotations(file: string): Promise<number[]> {
  const info = await runProgram('pdfinfo', ['-f', '1', '-l', String(SAMPLE_PAGES), file]);
  return [...info.stdout.matchAll(/^Page\s+\d+ rot:\s+(\d+)/gm)].map((m) => Number(m[1]));
}

const generators: Generator[] = [
  'openapi-typescript',
  'hey-api',
  'orval',
  'typescript-fetch',
  'openapi-python-client',
  'openapi-generator-python',
  'openapi-generator-go',
  'openapi-generator-java',
];

describe.concurrent('client generators on the live OpenAPI document', () => {
  it.each(generators)(
    '%s generates a client that compiles and runs a compress job, a chained job and runJob',
    async (name) => {
      const generation = generated.get(name);
      expect(generation?.stderr.match(/^.*(ERROR|Exception).*$/gm) ?? [], 'generation errors').toEqual([]);
      expect(generation?.code, `${name} generation`).toBe(0);
      const build = compiled.get(name);
      expect((build?.stdout ?? '') + (build?.stderr ?? ''), `${name} compile output`).toBe('');
      expect(build?.code).toBe(0);

      const { accountId, key } = await server.newAccount();
      const out = path.join(matrixDir, 'results', name);
      await mkdir(out, { recursive: true });
      const start = launch.get(name)!;
      const run = await runProgram(start.file, [...start.args, server.url, key, corpusFile(samplePdf), out], {
        ...(start.env ? { env: start.env } : {}),
        timeoutMs: PROGRAM_MS - 30_000,
      });
      // Pydantic warns (two lines) that openapi-generator's ProtectOptionsPermissions.copy shadows
      // BaseModel.copy; anything else on stderr is a failure.
      expect(run.stderr.replace(/^.*UserWarning.*\n.*\n/gm, ''), `${name} program stderr`).toBe('');
      expect(run.code).toBe(0);
      const ids: { compress: string; chain: string } = JSON.parse(run.stdout);

      const single = await server.runtime.db.jobs.get(accountId, ids.compress);
      expect(single).toMatchObject({ status: 'succeeded', tool: 'compress', options: { level: 'high' } });
      const chain = await server.runtime.db.jobs.get(accountId, ids.chain);
      expect(chain).toMatchObject({ status: 'succeeded', tool: 'rotate', options: { angle: 90 } });
      expect(chain?.nextSteps.map((step) => step.tool)).toEqual(['compress']);

      for (const file of ['compress.pdf', 'chain.pdf']) {
        const pages = await runProgram('qpdf', ['--show-npages', path.join(out, file)]);
        expect(pages.stdout.trim(), `${name} ${file}`).toBe(String(SAMPLE_PAGES));
      }
      // runJob: the merged PDF of two copies is the answer's body, as the client's bytes, blob or file.
      const ran = await runProgram('qpdf', ['--show-npages', path.join(out, 'run.pdf')]);
      expect(ran.stdout.trim(), `${name} run.pdf`).toBe(String(2 * SAMPLE_PAGES));
      const { jobs: all } = await server.runtime.db.jobs.list(accountId, { tool: 'merge', limit: 10 });
      expect(all.map((job) => job.status)).toEqual(['succeeded']);
      // The chain's first step turned every page; the compress job's pages are upright.
      expect(await rotations(path.join(out, 'compress.pdf'))).toEqual(Array(SAMPLE_PAGES).fill(0));
      const turned = await rotations(path.join(out, 'chain.pdf'));
      expect(new Set(turned).size).toBe(1);
      expect(turned[0]).not.toBe(0);
    },
    PROGRAM_MS,
  );
});
