// What engines are started through (src/process/limits.ts): the exec helper and util-linux's
// setpriv/unshare/prlimit chain, held to the same behaviour through the real runner and real
// processes — caps, the parent-death signal, the network namespace, a missing program — plus the
// helper's own argument checks and the race its parent-death check closes.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXEC_HELPER, execHelper, withLimits } from '../../src/process/limits.js';
import { run } from '../../src/process/runner.js';
import { eventually, isAlive } from '../support/process-state.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'quire-exec-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const isRoot = process.getuid?.() === 0;
const MiB = 1024 * 1024;
/** util-linux's setpriv as root, to run something as `nobody` (no CAP_SYS_ADMIN, no raised caps). */
const AS_NOBODY = ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'];

/** The soft and hard values of one line of /proc/<pid>/limits. */
function limitLine(limits: string, name: string): [string, string] {
  const match = new RegExp(`^${name}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(limits);
  return [match?.[1] ?? '', match?.[2] ?? ''];
}

/** The first line a child prints, as a number. */
async function firstNumber(child: ChildProcess): Promise<number> {
  for await (const line of createInterface({ input: child.stdout! })) return Number(line);
  return 0;
}

function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

it('the exec helper is built (scripts/build-helpers.sh) and is what engines start through', () => {
  expect(execHelper()).toBe(EXEC_HELPER);
  expect(withLimits('qpdf', ['--version'], { memoryBytes: MiB })).toEqual([
    EXEC_HELPER,
    [`--as=${MiB}`, '--', 'qpdf', '--version'],
  ]);
});

describe.each([
  ['the exec helper', EXEC_HELPER],
  ['util-linux setpriv/unshare/prlimit', null],
])('an engine started through %s', (_, helper) => {
  it('runs under a soft = hard address-space cap and a CPU cap with a second of grace, which its children inherit, as the spawned pid', async () => {
    const result = await run('sh', ['-c', 'echo $$ $(cut -d" " -f6 /proc/$$/stat); cat /proc/self/limits'], {
      cwd: dir,
      timeoutMs: 10_000,
      captureStdout: true,
      limits: { memoryBytes: 512 * MiB + 0.5, cpuSeconds: 6.2 },
      execHelper: helper,
    });
    expect(result.exitCode).toBe(0);
    const [ids = '', ...rest] = result.stdout.split('\n');
    const [pid, session] = ids.split(' ');
    // The spawner makes what it forks a session leader; the engine is one only if nothing forked it.
    expect(pid).toBe(session);
    const limits = rest.join('\n'); // cat's own: a grandchild of the wrapper
    expect(limitLine(limits, 'Max address space')).toEqual([String(512 * MiB), String(512 * MiB)]);
    expect(limitLine(limits, 'Max cpu time')).toEqual(['7', '8']);
  });

  it('ends the run at the CPU cap, and reports the memory cap as a limit hit', async () => {
    const cpu = await run('sh', ['-c', 'while :; do :; done'], {
      cwd: dir,
      timeoutMs: 30_000,
      limits: { cpuSeconds: 1 },
      execHelper: helper,
    });
    // At the soft cap the kernel sends SIGXCPU, well before the 30 s timeout: a CPU limit hit,
    // which engine adapters report as `timeout` (throwIfLimitHit), not as a crash.
    expect(cpu).toMatchObject({ exitCode: null, signal: 'SIGXCPU', limitHit: 'cpu' });
    const memory = await run('python3', ['-c', 'x = bytearray(1024 * 1024 * 1024)'], {
      cwd: dir,
      timeoutMs: 20_000,
      limits: { memoryBytes: 256 * MiB },
      execHelper: helper,
    });
    expect(memory.limitHit).toBe('memory');
  });

  it('is killed by the kernel when the process that started it dies, even by SIGKILL', async () => {
    const [file, argv] = withLimits('sleep', ['30'], { memoryBytes: 1024 * MiB, cpuSeconds: 60 }, helper);
    const parent = spawn('sh', ['-c', '"$@" & echo $!; wait', 'sh', file, ...argv], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const engine = await firstNumber(parent);
    expect(await eventually(() => comm(engine) === 'sleep')).toBe(true);
    process.kill(parent.pid!, 'SIGKILL'); // the parent alone: nothing else signals the engine
    expect(await eventually(() => !isAlive(engine), 3000)).toBe(true);
  });

  it('a missing program is engine_unavailable, with limits and network: false too', async () => {
    const options = { cwd: dir, timeoutMs: 5000, execHelper: helper };
    await expect(run('no-such-engine-xyz', [], options)).rejects.toMatchObject({
      code: 'engine_unavailable',
    });
    await expect(
      run('no-such-engine-xyz', [], { ...options, limits: { memoryBytes: 1024 * MiB, cpuSeconds: 5 } }),
    ).rejects.toMatchObject({ code: 'engine_unavailable' });
    if (isRoot) {
      await expect(run('no-such-engine-xyz', [], { ...options, network: false })).rejects.toMatchObject({
        code: 'engine_unavailable',
      });
    }
  });

  it('a program that is there but cannot be executed fails its run, and is not engine_unavailable', async () => {
    const script = path.join(dir, `not-executable-${helper === null ? 'chain' : 'helper'}`);
    await writeFile(script, '#!/bin/sh\necho ran\n', { mode: 0o644 });
    const result = await run(script, [], {
      cwd: dir,
      timeoutMs: 5000,
      captureStdout: true,
      limits: { cpuSeconds: 5 },
      execHelper: helper,
    });
    expect(result).toMatchObject({ exitCode: 126, stdout: '' });
    expect(result.stderrTail).toMatch(/failed to execute .*: Permission denied/);
  });

  it.runIf(isRoot)('with network: false is alone in a new network namespace holding only lo', async () => {
    const result = await run('sh', ['-c', 'readlink /proc/self/ns/net; cat /proc/net/dev'], {
      cwd: dir,
      timeoutMs: 5000,
      captureStdout: true,
      network: false,
      execHelper: helper,
    });
    const [namespace, , , ...devices] = result.stdout.trim().split('\n');
    expect(namespace).toMatch(/^net:\[\d+\]$/);
    expect(namespace).not.toBe(readlinkSync('/proc/self/ns/net'));
    expect(devices.map((line) => line.split(':')[0]!.trim())).toEqual(['lo']);
  });

  it.runIf(isRoot)('fails, without running the command, when the namespace cannot be made', () => {
    const [file, argv] = withLimits('sh', ['-c', 'echo ran'], { isolateNetwork: true }, helper);
    const [nobody, ...rest] = AS_NOBODY;
    const result = spawnSync(nobody!, [...rest, file, ...argv], { encoding: 'utf8' });
    expect(result.status).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/unshare|network namespace/);
  });
});

describe('the exec helper', () => {
  it.each([
    [['--as=12x']],
    [['--as=']],
    [['--cpu=-1']],
    [['--cpu=1.5']],
    [['--as=99999999999999999999999']],
    [['--as=18446744073709551615']],
    [['--memory=1']],
    [['--as=1', '--as=2']],
    [['--net', '--net']],
  ])('refuses %j with exit 126 and a message, running nothing', (flags) => {
    const result = spawnSync(EXEC_HELPER, [...flags, '--', 'sh', '-c', 'echo ran'], { encoding: 'utf8' });
    expect(result).toMatchObject({ status: 126, stdout: '' });
    expect(result.stderr).toMatch(/^quire-exec: .*(number|unknown argument|given twice)/);
  });

  it('refuses a command line without -- or without a command', () => {
    for (const args of [
      ['sh', '-c', 'echo ran'],
      ['--cpu=5', '--'],
    ]) {
      const result = spawnSync(EXEC_HELPER, args, { encoding: 'utf8' });
      expect(result).toMatchObject({ status: 126, stdout: '' });
      expect(result.stderr).toMatch(/^quire-exec: .*usage: quire-exec/);
    }
  });

  it('ends itself when the process that started it died before the parent-death signal was set', async () => {
    // The inner shell outlives the outer one, is handed to init, then execs the helper.
    const outer = spawn('sh', ['-c', `sh -c 'sleep 0.5; exec "$0" -- sleep 30' ${EXEC_HELPER} & echo $!`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const orphan = await firstNumber(outer);
    const ppid = () => {
      try {
        return Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${orphan}/status`, 'utf8'))?.[1]);
      } catch {
        return 0; // already gone
      }
    };
    expect(await eventually(() => ppid() === 1)).toBe(true);
    expect(await eventually(() => !isAlive(orphan), 3000)).toBe(true);
  });
});
