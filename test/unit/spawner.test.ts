// The engine spawner under the runner: engines die with the service even when it is SIGKILLed, a
// spawner that dies fails its runs clearly and is replaced, and output stays bounded on its way over.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineBuffer } from '../../src/process/line-buffer.js';
import { run } from '../../src/process/runner.js';
import { spawnerPid } from '../../src/process/spawner/client.js';
import { repoRoot } from '../support/corpus.js';
import { eventually, isAlive } from '../support/process-state.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'quire-spawner-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A shell that prints its own pid, starts a long-sleeping grandchild, prints its pid and waits. */
const FAMILY = ['-c', 'echo $$; sleep 30 & echo $!; wait'];

/**
 * A stand-in service: the built runner in a process of its own, running FAMILY and printing the
 * spawner's pid, then the engine's and its grandchild's.
 */
const SERVICE = `
const { run } = await import(${JSON.stringify(path.join(repoRoot, 'dist/process/runner.js'))});
const { spawnerPid } = await import(${JSON.stringify(path.join(repoRoot, 'dist/process/spawner/client.js'))});
const { LineBuffer } = await import(${JSON.stringify(path.join(repoRoot, 'dist/process/line-buffer.js'))});
const lines = new LineBuffer();
const running = run('sh', ${JSON.stringify(FAMILY)}, { cwd: ${JSON.stringify(tmpdir())}, timeoutMs: 60_000, stdoutLines: lines });
console.log(spawnerPid());
void (async () => { for (let l = await lines.next(); l !== undefined; l = await lines.next()) console.log(l); })();
await running;
`;

describe('the engine spawner', () => {
  it('takes the engine and its grandchild down when the service is SIGKILLed', async () => {
    const service = spawn(process.execPath, ['--input-type=module', '-e', SERVICE], {
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pids: number[] = [];
    for await (const line of createInterface({ input: service.stdout! })) {
      pids.push(Number(line));
      if (pids.length === 3) break;
    }
    expect(pids.every((pid) => pid > 0 && isAlive(pid))).toBe(true);
    process.kill(service.pid!, 'SIGKILL'); // the service alone, not its group
    expect(await eventually(() => pids.every((pid) => !isAlive(pid)), 3000)).toBe(true);
  });

  it('fails the runs of a spawner that dies with internal_error, then starts a new one', async () => {
    const lines = new LineBuffer();
    const pids: number[] = [];
    const running = run('sh', FAMILY, { cwd: dir, timeoutMs: 30_000, stdoutLines: lines });
    const first = spawnerPid()!;
    expect(await eventually(() => pids.push(...lines.drain().map(Number)) === 2, 3000)).toBe(true);
    process.kill(first, 'SIGKILL');
    await expect(running).rejects.toMatchObject({
      code: 'internal_error',
      message: expect.stringMatching(/engine spawner exited \(SIGKILL\)/),
    });
    expect(await eventually(() => pids.every((pid) => !isAlive(pid)), 3000)).toBe(true);

    const after = await run('sh', ['-c', 'echo again'], { cwd: dir, timeoutMs: 5000, captureStdout: true });
    expect(after).toMatchObject({ exitCode: 0, stdout: 'again\n' });
    expect(spawnerPid()).not.toBe(first);
  });

  it('ignores a SIGTERM meant for the process group while the service lives', async () => {
    await run('true', [], { cwd: dir, timeoutMs: 5000 });
    const before = spawnerPid()!;
    process.kill(before, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    await expect(run('true', [], { cwd: dir, timeoutMs: 5000 })).resolves.toMatchObject({ exitCode: 0 });
    expect(spawnerPid()).toBe(before);
  });

  it.each([
    ['an abort', { signal: AbortSignal.timeout(1), timeoutMs: 30_000 }, { name: 'AbortedError' }],
    ['a timeout', { timeoutMs: 1 }, { code: 'timeout' }],
  ])('kills an engine whose stop (%s) comes before its pid is known', async (_, stop, error) => {
    const pidFile = path.join(dir, `engine-${Math.random()}`);
    await expect(
      run('sh', ['-c', `echo $$ > ${pidFile}; exec sleep 30`], { cwd: dir, ...stop }),
    ).rejects.toMatchObject(error);
    await new Promise((r) => setTimeout(r, 300));
    const pid = Number(readFileSync(pidFile, { encoding: 'utf8', flag: 'a+' }) || 0);
    if (pid > 0) expect(await eventually(() => !isAlive(pid), 3000)).toBe(true);
  });

  it('keeps at most stdoutMaxBytes of stdout and says it cut the rest', async () => {
    const result = await run('sh', ['-c', 'head -c 300000 /dev/zero | tr "\\0" x'], {
      cwd: dir,
      timeoutMs: 10_000,
      captureStdout: true,
      stdoutMaxBytes: 1000,
    });
    expect(result).toMatchObject({ exitCode: 0, stdoutTruncated: true });
    expect(result.stdout).toBe('x'.repeat(1000));
  });

  it('lets an engine write output nobody reads without holding the run', async () => {
    const result = await run('sh', ['-c', 'head -c 20000000 /dev/zero; echo done >&2'], {
      cwd: dir,
      timeoutMs: 10_000,
    });
    expect(result).toMatchObject({ exitCode: 0, stdout: '', stdoutTruncated: false });
    expect(result.stderrTail).toBe('done\n');
  });

  it('relays every line of a long output in order while capturing it', async () => {
    const buffer = new LineBuffer(200_000);
    const result = await run('seq', ['1', '200000'], {
      cwd: dir,
      timeoutMs: 20_000,
      captureStdout: true,
      stdoutLines: buffer,
    });
    const lines = buffer.drain();
    expect(buffer.dropped).toBe(0);
    expect(lines).toHaveLength(200_000);
    expect(lines[0]).toBe('1');
    expect(lines.at(-1)).toBe('200000');
    expect(lines.every((l, i) => l === String(i + 1))).toBe(true);
    expect(result.stdout.endsWith('199999\n200000\n')).toBe(true);
  });

  it('does not keep an idle service process alive', async () => {
    const script = `
const { run } = await import(${JSON.stringify(path.join(repoRoot, 'dist/process/runner.js'))});
await run('true', [], { cwd: ${JSON.stringify(tmpdir())}, timeoutMs: 5000 });
console.log('done');
`;
    const service = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' });
    const exitCode = await new Promise((resolve) => service.once('exit', resolve));
    expect(exitCode).toBe(0);
  });
});
