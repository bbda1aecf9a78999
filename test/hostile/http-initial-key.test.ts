// The first start's all-scopes key (issue 14): under systemd, Docker or Kubernetes stdout is the log,
// so the key is printed only to a terminal; the 0600 file is always written and otherwise named.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, readInitialKey } from '../support/cli-process.js';
import { repoRoot } from '../support/corpus.js';

const main = path.join(repoRoot, 'dist/cli/main.js');
const running: { child: ChildProcess; dataDir: string }[] = [];

afterEach(async () => {
  for (const { child, dataDir } of running.splice(0)) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  }
});

/** Starts `command args` in its own process group and resolves with its output once `marker` shows. */
async function startUntil(command: string, args: string[], marker: RegExp) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'quire-first-start-'));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    QUIRE_DATA_DIR: dataDir,
    QUIRE_PORT: String(await freePort()),
    QUIRE_LOG_LEVEL: 'warn',
    QUIRE_WORKER_CONCURRENCY: '1',
  };
  const child = spawn(command, args, {
    cwd: repoRoot,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push({ child, dataDir });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${marker}" in: ${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (marker.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  return { output: () => output, dataDir, keyFile: path.join(dataDir, 'initial-api-key') };
}

describe('first start of quire serve', () => {
  it('off a terminal (a pipe, as under systemd or Docker) prints only the path of the 0600 key file', async () => {
    const started = await startUntil(process.execPath, [main, 'serve'], /initial-api-key/);
    // The line is written after the file, so the file is complete by now.
    const key = await readInitialKey(started.dataDir);
    expect(key).toMatch(/^qk_live_[0-9A-Za-z]{8}_[0-9A-Za-z]{43}$/);
    expect(started.output()).toContain(started.keyFile);
    expect(started.output()).not.toContain(key);
    expect(started.output()).not.toContain(key.split('_')[3]!);
    expect((await stat(started.keyFile)).mode & 0o777).toBe(0o600);
  });

  it("at a terminal (a pty from script(1)) prints the key once and the web app's sign-in link once, and still writes the file", async () => {
    const command = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(main)} serve`;
    const started = await startUntil('script', ['-qfec', command, '/dev/null'], /#key=qk_live_\S{52}/);
    const key = (await readFile(started.keyFile, 'utf8')).trim();
    expect(started.output()).toContain(`  ${key}`);
    // The link carries the key in its fragment, which a browser never sends (web/src/session.ts).
    expect(started.output()).toMatch(new RegExp(`http://127\\.0\\.0\\.1:\\d+/#key=${key}`));
    expect(started.output().split(key)).toHaveLength(3);
    expect((await stat(started.keyFile)).mode & 0o777).toBe(0o600);
  });
});
