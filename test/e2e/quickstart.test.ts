// The README's first command, as a newcomer runs it: `quire serve` on an empty data dir prints a key,
// answers /readyz, and a curl session compresses a corpus PDF end to end; `scripts/serve.sh` started
// again rebuilds nothing.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, freePort, readInitialKey, startCli, waitForReady } from '../support/cli-process.js';
import { corpusFile, repoRoot } from '../support/corpus.js';

let dataDir: string;
let cli: CliProcess;
let base: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'quire-quickstart-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  cli = startCli(['serve'], { QUIRE_DATA_DIR: dataDir, QUIRE_PORT: String(port), QUIRE_LOG_LEVEL: 'warn' });
  await waitForReady(base);
});
afterAll(async () => {
  await cli.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const curl = (...args: string[]) => execFileSync('curl', ['-sS', ...args], { encoding: 'utf8' });

describe('quick start', () => {
  // Printing the key itself at a terminal is checked in test/hostile/http-initial-key.test.ts.
  it('writes the first API key to data/initial-api-key with mode 0600 and, off a terminal, prints only that path', async () => {
    const key = await readInitialKey(dataDir);
    expect(key).toMatch(/^qk_live_[0-9A-Za-z]{8}_[0-9A-Za-z]{43}$/);
    expect(cli.output()).not.toContain(key);
    expect(cli.output()).toContain(path.join(dataDir, 'initial-api-key'));
    expect((await stat(path.join(dataDir, 'initial-api-key'))).mode & 0o777).toBe(0o600);
  });

  it('compresses a corpus PDF through a curl session: progress reaches 100 and the download is a valid, smaller PDF', async () => {
    const key = await readInitialKey(dataDir);
    const input = corpusFile('pdfjs__tracemonkey.pdf');
    const created = JSON.parse(
      curl(
        '-H',
        `Authorization: Bearer ${key}`,
        '-F',
        'tool=compress',
        '-F',
        'options={"level":"medium"}',
        '-F',
        `file=@${input}`,
        `${base}/api/v1/jobs`,
      ),
    ) as { id: string; status: string };
    expect(created.status).toBe('queued');

    const seen: number[] = [];
    let job: { status: string; progress: number } = { status: 'queued', progress: 0 };
    for (let i = 0; i < 120 && !['succeeded', 'failed'].includes(job.status); i++) {
      job = JSON.parse(
        curl('-H', `Authorization: Bearer ${key}`, `${base}/api/v1/jobs/${created.id}?wait=1`),
      );
      seen.push(job.progress);
    }
    expect(job.status).toBe('succeeded');
    expect(seen.at(-1)).toBe(100);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen); // never decreasing

    const output = path.join(dataDir, 'out.pdf');
    curl(
      '-L',
      '-o',
      output,
      '-H',
      `Authorization: Bearer ${key}`,
      `${base}/api/v1/jobs/${created.id}/download`,
    );
    execFileSync('qpdf', ['--check', output]);
    expect((await stat(output)).size).toBeLessThan((await stat(input)).size);
  });
});

describe('scripts/serve.sh started again on unchanged sources', () => {
  it('compiles nothing and answers /readyz within 5 s', async () => {
    // The first start's build (a no-op when the suite's global setup built these sources).
    execFileSync('bash', ['scripts/build.sh'], { cwd: repoRoot, stdio: 'ignore' });
    const again = await mkdtemp(path.join(os.tmpdir(), 'quire-serve-again-'));
    const port = await freePort();
    const started = Date.now();
    const child = spawn('bash', ['scripts/serve.sh'], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        QUIRE_DATA_DIR: again,
        QUIRE_PORT: String(port),
        QUIRE_LOG_LEVEL: 'warn',
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await waitForReady(`http://127.0.0.1:${port}`, 30_000);
      const seconds = (Date.now() - started) / 1000;
      expect(output).toContain('[build] dist/ is up to date');
      expect(output).not.toContain('compiling TypeScript');
      expect(seconds, output).toBeLessThan(5);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      await rm(again, { recursive: true, force: true });
    }
  }, 60_000);
});
