// quirectl, the command line for people, as a person runs it: compiled, against a real server, in a
// pseudo-terminal (util-linux `script`) for the progress bars, and with --json for scripts.
import { execFile, execFileSync } from 'node:child_process';
import { copyFile, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile, repoRoot } from '../../support/corpus.js';
import { fakeEngine } from '../../support/fake-engine/index.js';
import { fakeTool } from '../../support/fake-engine/tool.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { buildSdk, scratchDir } from './support.js';

let server: TestServer;
let key: string;
let dir: string;
let build: string;
let cli: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** quirectl with a private XDG config dir and no QUIRE_* from the test's own environment. */
function quirectl(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
): Promise<Run> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    ...options.env,
  };
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [cli, ...args],
      { cwd: dir, env, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
    child.stdin?.end(options.stdin ?? '');
  });
}

const withKey = () => ({ env: { QUIRE_URL: server.url, QUIRE_API_KEY: key } });
const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  [server, dir, build] = await Promise.all([
    startTestServer({}, { extras: { engines: [fakeEngine], tools: [fakeTool] } }),
    scratchDir('cli'),
    buildSdk('cli'),
  ]);
  cli = path.join(build, 'cli', 'main.js');
  key = (await server.newAccount()).key;
  for (const name of ['a.pdf', 'b.pdf', 'c.pdf'])
    await copyFile(corpusFile('pypdf-samples__pdflatex-4-pages.pdf'), path.join(dir, name));
  await writeFile(path.join(dir, 'broken.pdf'), '%PDF-1.7\nnot a PDF body\n');
}, 120_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(build, { recursive: true, force: true });
});

describe('quirectl', () => {
  it('logs in with the key from stdin into a 0600 file under XDG_CONFIG_HOME, which later commands use', async () => {
    const login = await quirectl(['login', '--url', server.url], { stdin: `${key}\n` });
    expect(login.stderr).toContain('logged in');
    expect(login.code).toBe(0);
    const file = path.join(dir, 'config', 'quire', 'quirectl.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ url: server.url, apiKey: key });
    const tools = await quirectl(['tools']);
    expect(tools.code).toBe(0);
    expect(tools.stdout).toMatch(/^compress\s+Compress/m);
    // The environment overrides the file: a server that is not there is network trouble (4).
    expect(
      (await quirectl(['tools'], { env: { QUIRE_URL: 'http://127.0.0.1:9', QUIRE_RETRIES: '0' } })).code,
    ).toBe(4);
    // The key is never an argument.
    const positional = await quirectl(['login', '--url', server.url, key], { stdin: `${key}\n` });
    expect(positional.code).toBe(2);
  });

  it('shows an upload bar and a job bar in a terminal and writes the result', async () => {
    const command = [process.execPath, cli, 'compress', 'a.pdf', '--level', 'high', '-o', 'small.pdf']
      .map((a) => `'${a}'`)
      .join(' ');
    const env = {
      ...process.env,
      XDG_CONFIG_HOME: path.join(dir, 'config'),
      QUIRE_URL: server.url,
      QUIRE_API_KEY: key,
      TERM: 'xterm',
    };
    // Asynchronous: the server runs in this process and must keep answering while `script` waits.
    const output = await new Promise<string>((resolve, reject) => {
      const child = execFile(
        'script',
        ['-q', '-e', '-c', command, '/dev/null'],
        { cwd: dir, env, timeout: 120_000 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
      child.stdin?.end();
    });
    expect(output).toMatch(/a\.pdf upload .*100% \| [\d.]+ KiB of [\d.]+ KiB, [\d.]+ [KM]iB\/s/);
    expect(output).toMatch(/a\.pdf job .*100% \| succeeded/);
    expect(output).toContain('\u001b[');
    expect(
      execFileSync('qpdf', ['--show-npages', path.join(dir, 'small.pdf')])
        .toString()
        .trim(),
    ).toBe('4');
  });

  it('prints plain lines, not bars, when stderr is not a terminal', async () => {
    const run = await quirectl(['rotate', 'a.pdf', '--angle', '90', '-o', 'rotated.pdf'], withKey());
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('a.pdf: uploaded 100%\n');
    expect(run.stderr).toContain('a.pdf: succeeded 100%\n');
    expect(run.stderr).not.toContain('\u001b[');
  });

  it('merges several files into one job, and chains steps with --steps', async () => {
    const merge = await quirectl(['merge', 'a.pdf', 'b.pdf', 'c.pdf', '-o', 'all.pdf', '--json'], withKey());
    expect(merge.code).toBe(0);
    expect(lines(merge.stdout)).toEqual([
      expect.objectContaining({ tool: 'merge', status: 'succeeded', output: 'all.pdf' }),
    ]);
    expect(
      execFileSync('qpdf', ['--show-npages', path.join(dir, 'all.pdf')])
        .toString()
        .trim(),
    ).toBe('12');

    const chain = await quirectl(
      ['run', '--steps', 'rotate angle=90 | compress level=high', 'a.pdf', '-o', 'out.pdf', '--json'],
      withKey(),
    );
    expect(chain.code).toBe(0);
    const [job] = lines(chain.stdout);
    expect(job).toMatchObject({ status: 'succeeded', output: 'out.pdf' });
    const shown = await quirectl(['jobs', 'show', String(job?.id), '--json'], withKey());
    expect(JSON.parse(shown.stdout).steps).toEqual([
      { tool: 'rotate', options: expect.objectContaining({ angle: 90 }) },
      { tool: 'compress', options: expect.objectContaining({ level: 'high' }) },
    ]);
  });

  it('saves, lists, shows and deletes recipes, and runs one by name with --recipe (name@1 after a new version)', async () => {
    const save = await quirectl(
      ['recipes', 'save', 'cli-turn', '--steps', 'rotate angle=90', '--json'],
      withKey(),
    );
    expect(save.code, save.stderr).toBe(0);
    expect(JSON.parse(save.stdout)).toMatchObject({ name: 'cli-turn', version: 1 });
    const again = await quirectl(
      ['recipes', 'save', 'cli-turn', '--steps-json', '[{"tool":"rotate","options":{"angle":180}}]'],
      withKey(),
    );
    expect(again.stdout).toMatch(/^cli-turn@2 saved \(rcp_/);
    const list = await quirectl(['recipes', 'list', '--json'], withKey());
    expect(lines(list.stdout)).toContainEqual(expect.objectContaining({ name: 'cli-turn', version: 2 }));
    const shown = await quirectl(['recipes', 'show', 'cli-turn@1', '--json'], withKey());
    expect(JSON.parse(shown.stdout)).toMatchObject({
      version: 1,
      steps: [{ tool: 'rotate', options: { angle: 90 } }],
    });

    const run = await quirectl(
      ['run', '--recipe', 'cli-turn@1', 'a.pdf', '-o', 'turned.pdf', '--json'],
      withKey(),
    );
    expect(run.code, run.stderr).toBe(0);
    const [job] = lines(run.stdout);
    expect(job).toMatchObject({ status: 'succeeded', tool: 'rotate', output: 'turned.pdf' });
    const ran = JSON.parse((await quirectl(['jobs', 'show', String(job?.id), '--json'], withKey())).stdout);
    expect(ran).toMatchObject({ recipe: { name: 'cli-turn', version: 1 }, options: { angle: 90 } });

    expect((await quirectl(['recipes', 'delete', 'cli-turn'], withKey())).code).toBe(0);
    const gone = await quirectl(['run', '--recipe', 'cli-turn', 'a.pdf'], withKey());
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain('not_found');
    const both = await quirectl(['run', '--recipe', 'x', '--steps', 'rotate', 'a.pdf'], withKey());
    expect(both.code).toBe(2);
  });

  it('runs one job per file with -o a directory, one JSON object per job', async () => {
    const run = await quirectl(
      ['compress', 'a.pdf', 'b.pdf', 'c.pdf', '-o', 'many/', '--concurrency', '2', '--json'],
      withKey(),
    );
    expect(run.code).toBe(0);
    const jobs = lines(run.stdout);
    expect(jobs).toHaveLength(3);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(3);
    for (const job of jobs) expect(job).toMatchObject({ status: 'succeeded', tool: 'compress' });
    expect((await readdir(path.join(dir, 'many'))).sort()).toEqual([
      'a-compressed.pdf',
      'b-compressed.pdf',
      'c-compressed.pdf',
    ]);
  });

  it('exits 2 for bad input, 3 for a failed job and 4 for server trouble', async () => {
    const badValue = await quirectl(['compress', 'a.pdf', '--level', 'extreme'], withKey());
    expect(badValue.code).toBe(2);
    expect(badValue.stderr).toContain('--level must be one of lossless, low, medium, high');
    expect((await quirectl(['compress', 'missing.pdf'], withKey())).code).toBe(2);
    const refused = await quirectl(['compress', 'a.pdf', '--options', '{"angle":90}'], withKey());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('invalid_options');

    const failed = await quirectl(['compress', 'broken.pdf', '--json'], withKey());
    expect(failed.code).toBe(3);
    expect(lines(failed.stdout)).toEqual([
      expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'pdf_corrupt' }) }),
    ]);

    const down = await quirectl(['compress', 'a.pdf'], {
      env: { QUIRE_URL: 'http://127.0.0.1:9', QUIRE_API_KEY: key, QUIRE_RETRIES: '1' },
    });
    expect(down.code).toBe(4);
    expect(down.stderr).toContain('network_error');
    expect(down.stderr).not.toContain(key);
  });

  it('has a command for a tool the server gained, with flags from its schema', async () => {
    const help = await quirectl(['fake', '--help'], withKey());
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Fake engine run');
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/--behaviour <string> .*one of copy \| crash \|/);
    const run = await quirectl(
      ['fake', 'a.pdf', '--behaviour', 'copy', '-o', 'fake.pdf', '--json'],
      withKey(),
    );
    expect(run.code).toBe(0);
    expect(lines(run.stdout)).toEqual([expect.objectContaining({ tool: 'fake', status: 'succeeded' })]);
  });

  it('shows each option’s type, values and default in a tool’s help', async () => {
    const help = await quirectl(['compress', '--help'], withKey());
    // commander wraps help lines at 80 columns: compare with the line breaks taken out.
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toMatch(
      /--level <string> .* \(string, one of lossless \| low \| medium \| high, default "medium"\)/,
    );
    expect(text).toMatch(/--grayscale Convert colours to grey\. \(boolean, default false\)/);
    expect(text).toContain('--no-grayscale');
  });

  it('lists, shows, cancels and downloads jobs; creates, shows and downloads batches; manages uploads', async () => {
    const list = await quirectl(
      ['jobs', 'list', '--status', 'succeeded', '--limit', '2', '--json'],
      withKey(),
    );
    const [latest] = lines(list.stdout);
    expect(latest).toMatchObject({ object: 'job' });
    const download = await quirectl(['jobs', 'download', String(latest?.id), '-o', 'again.pdf'], withKey());
    expect(download.code).toBe(0);
    expect((await stat(path.join(dir, 'again.pdf'))).size).toBeGreaterThan(0);
    const cancel = await quirectl(['jobs', 'cancel', String(latest?.id)], withKey());
    expect(cancel.code).toBe(2);
    expect(cancel.stderr).toContain('job_state_conflict');

    const created = await quirectl(
      ['batches', 'create', 'rotate', 'a.pdf', 'b.pdf', '--options', '{"angle":90}', '--json'],
      withKey(),
    );
    const batch = JSON.parse(created.stdout) as { id: string; total: number };
    expect(batch.total).toBe(2);
    for (let i = 0; i < 120; i++) {
      const shown = JSON.parse(
        (await quirectl(['batches', 'show', batch.id, '--json'], withKey())).stdout,
      ) as { status: string };
      if (shown.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect((await quirectl(['batches', 'download', batch.id, '-o', 'batch.zip'], withKey())).code).toBe(0);
    expect(
      execFileSync('unzip', ['-Z1', path.join(dir, 'batch.zip')])
        .toString()
        .trim()
        .split('\n'),
    ).toHaveLength(2);

    const upload = await quirectl(['uploads', 'create', 'a.pdf', '--json'], withKey());
    const { id } = JSON.parse(upload.stdout) as { id: string };
    expect(id).toMatch(/^upl_/);
    const shown = JSON.parse((await quirectl(['uploads', 'show', id, '--json'], withKey())).stdout) as {
      offset: number;
      length: number;
    };
    expect(shown.offset).toBe(shown.length);
    expect((await quirectl(['uploads', 'delete', id], withKey())).code).toBe(0);
    expect((await quirectl(['uploads', 'show', id], withKey())).code).toBe(2);
  }, 120_000);

  it('runs the quick example of docs/clients.md as written', async () => {
    const doc = await readFile(path.join(repoRoot, 'docs', 'clients.md'), 'utf8');
    const code = /```ts\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf('## TypeScript SDK')))?.[1];
    expect(code).toContain("quire.run('compress'");
    const example = path.join(build, 'docs-example.mjs');
    await writeFile(example, code!.replace("'@quire/client'", `'${path.join(build, 'index.js')}'`));
    await copyFile(path.join(dir, 'a.pdf'), path.join(dir, 'report.pdf'));
    const run = await new Promise<Run>((resolve) => {
      execFile(
        process.execPath,
        [example],
        {
          cwd: dir,
          env: {
            ...process.env,
            QUIRE_URL: server.url,
            QUIRE_API_KEY: key,
            XDG_STATE_HOME: path.join(dir, 'state'),
          },
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^report-compressed\.pdf: \d+ bytes\n$/);
    expect(
      execFileSync('qpdf', ['--show-npages', path.join(dir, 'small.pdf')])
        .toString()
        .trim(),
    ).toBe('4');
  });
});
