// The operator's commands, run as real processes: migrate, keys create/list/revoke, and the split
// topology of one `quire api` and one `quire worker` sharing a data directory.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, freePort, startCli, waitForReady } from '../support/cli-process.js';
import { Client } from '../support/client.js';
import { corpusFile, repoRoot } from '../support/corpus.js';
import { pageCount, toFile } from '../support/pdf.js';

const run = promisify(execFile);
let dataDir: string;
const env = () => ({ ...process.env, QUIRE_DATA_DIR: dataDir, QUIRE_LOG_LEVEL: 'warn' });
const quire = (...args: string[]) =>
  run(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), ...args], { env: env() });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'quire-cli-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('quire CLI', () => {
  it('`quire <command> … --help` prints that usage and exits 0 without doing anything, for every command', async () => {
    const commands = [
      ['serve'],
      ['api'],
      ['worker'],
      ['migrate'],
      ['keys'],
      ['keys', 'create'],
      ['keys', 'list'],
      ['keys', 'revoke'],
      ['accounts'],
      ['accounts', 'create'],
      ['accounts', 'set-plan'],
      ['accounts', 'list'],
    ];
    const empty = await mkdtemp(path.join(os.tmpdir(), 'quire-cli-help-'));
    try {
      const answers = await Promise.all(
        commands.map((command) =>
          run(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), ...command, '--help'], {
            env: { ...env(), QUIRE_DATA_DIR: empty },
          }),
        ),
      );
      answers.forEach(({ stdout, stderr }, i) => {
        const command = commands[i]!;
        expect(stdout, command.join(' ')).toContain(`Usage: quire ${command[0]}`);
        expect(stdout, command.join(' ')).toContain(`  ${command.join(' ')}`);
        expect(stderr, command.join(' ')).toBe('');
      });
      // Nothing opened: no database, no server secret, no server started.
      expect(await readdir(empty)).toEqual([]);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('answers an unknown flag with the usage and exit 2, not a stack trace', async () => {
    const failed = await quire('keys', 'create', '--bogus').catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 2 });
    const { stderr } = failed as { stderr: string };
    expect(stderr).toContain("Unknown option '--bogus'");
    expect(stderr).toContain('keys create [--account ID]');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('migrates, creates, lists and revokes keys; a revoked key is refused by the API', async () => {
    expect((await quire('migrate')).stdout).toContain('migrations applied');
    const created = await quire('keys', 'create', '--scopes', 'jobs:read', '--name', 'dashboard');
    const key = created.stdout.trim();
    expect(key).toMatch(/^qk_live_[0-9A-Za-z]{8}_[0-9A-Za-z]{43}$/);
    const keyId = key.split('_')[2]!;
    const listed = (await quire('keys', 'list')).stdout;
    expect(listed).toContain(`${keyId}\t`);
    expect(listed).toContain('active\tjobs:read\tdashboard');
    expect(listed).not.toContain(key.split('_')[3]!);

    const port = await freePort();
    const api = startCli(['api'], {
      QUIRE_DATA_DIR: dataDir,
      QUIRE_PORT: String(port),
      QUIRE_LOG_LEVEL: 'warn',
    });
    try {
      await waitForReady(`http://127.0.0.1:${port}`);
      const client = new Client(`http://127.0.0.1:${port}`, key);
      expect((await client.fetch('/api/v1/jobs')).status).toBe(200);
      await quire('keys', 'revoke', keyId);
      expect((await quire('keys', 'list')).stdout).toContain('revoked');
      expect((await client.fetch('/api/v1/jobs')).status).toBe(401);
    } finally {
      await api.stop();
    }
  });

  it('refuses a bad setting at start, naming the variable', async () => {
    const failed = await run(process.execPath, [path.join(repoRoot, 'dist/cli/main.js'), 'migrate'], {
      env: { ...env(), QUIRE_JOB_LEASE_MS: 'soon' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toContain('QUIRE_JOB_LEASE_MS');
  });

  it('runs jobs with separate api and worker processes on one data directory', async () => {
    const key = (
      await quire('keys', 'create', '--scopes', 'jobs:read,jobs:write,results:read')
    ).stdout.trim();
    const port = await freePort();
    const processes: CliProcess[] = [
      startCli(['api'], { QUIRE_DATA_DIR: dataDir, QUIRE_PORT: String(port), QUIRE_LOG_LEVEL: 'warn' }),
      startCli(['worker'], { QUIRE_DATA_DIR: dataDir, QUIRE_LOG_LEVEL: 'warn', QUIRE_WORKER_POLL_MS: '100' }),
    ];
    try {
      await waitForReady(`http://127.0.0.1:${port}`);
      const client = new Client(`http://127.0.0.1:${port}`, key);
      const job = await client.run({
        tool: 'merge',
        files: [corpusFile('pypdf-samples__pdflatex-4-pages.pdf'), corpusFile('pdfjs__tracemonkey.pdf')],
      });
      expect(job.status).toBe('succeeded');
      expect(pageCount(toFile((await client.download(job.id)).body))).toBe(18);
    } finally {
      await Promise.all(processes.map((p) => p.stop()));
    }
  }, 60_000);
});
