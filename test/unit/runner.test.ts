import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineBuffer } from '../../src/process/line-buffer.js';
import { run, throwIfLimitHit } from '../../src/process/runner.js';
import {
  openWorkDir,
  removeWorkDir,
  takeMadeFile,
  withWorkDir,
  writeSecretFile,
} from '../../src/process/work-dir.js';
import { eventually, isAlive } from '../support/process-state.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'quire-runner-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A shell that starts a long-sleeping grandchild, prints its pid and waits. */
const FAMILY = ['-c', 'sleep 30 & echo $!; wait'];

describe('run', () => {
  it('captures exit code, stdout and its lines in a line buffer', async () => {
    const lines = new LineBuffer();
    const result = await run('sh', ['-c', 'echo one; echo two; exit 3'], {
      cwd: dir,
      timeoutMs: 5000,
      captureStdout: true,
      stdoutLines: lines,
    });
    expect(result).toMatchObject({ exitCode: 3, signal: null, stdout: 'one\ntwo\n' });
    expect(lines.drain()).toEqual(['one', 'two']);
    expect(lines.ended).toBe(true);
  });

  it('keeps only the last 16 KiB of stderr', async () => {
    const result = await run(
      'sh',
      ['-c', 'i=0; while [ $i -lt 3000 ]; do echo "line $i" >&2; i=$((i+1)); done; echo END >&2'],
      {
        cwd: dir,
        timeoutMs: 10_000,
      },
    );
    expect(Buffer.byteLength(result.stderrTail)).toBeLessThanOrEqual(16 * 1024);
    expect(result.stderrTail.trim().endsWith('END')).toBe(true);
  });

  it('gives the child a minimal environment rooted in the work dir', async () => {
    process.env.QUIRE_TEST_LEAK = 'leak';
    const result = await run('sh', ['-c', 'env; pwd'], { cwd: dir, timeoutMs: 5000, captureStdout: true });
    delete process.env.QUIRE_TEST_LEAK;
    expect(result.stdout).toContain(`HOME=${dir}`);
    expect(result.stdout).toContain(`TMPDIR=${dir}`);
    expect(result.stdout).toContain('LANG=C.UTF-8');
    expect(result.stdout).not.toContain('QUIRE_TEST_LEAK');
    expect(result.stdout.trim().endsWith(dir)).toBe(true);
  });

  it('on timeout kills the whole process group, grandchild included', async () => {
    const lines = new LineBuffer();
    const started = Date.now();
    await expect(run('sh', FAMILY, { cwd: dir, timeoutMs: 300, stdoutLines: lines })).rejects.toMatchObject({
      code: 'timeout',
    });
    const grandchild = Number(lines.drain()[0] ?? 0);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(grandchild).toBeGreaterThan(0);
    expect(await eventually(() => !isAlive(grandchild))).toBe(true);
  });

  it('on abort kills the group and rejects with AbortedError', async () => {
    const controller = new AbortController();
    const lines = new LineBuffer();
    const running = run('sh', FAMILY, {
      cwd: dir,
      timeoutMs: 30_000,
      signal: controller.signal,
      stdoutLines: lines,
    });
    const grandchild = Number(await lines.next());
    controller.abort(new Error('job canceled'));
    await expect(running).rejects.toMatchObject({ name: 'AbortedError' });
    expect(await eventually(() => !isAlive(grandchild))).toBe(true);
  });

  it('refuses to start when already aborted', async () => {
    await expect(
      run('true', [], { cwd: dir, timeoutMs: 1000, signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({
      name: 'AbortedError',
    });
  });

  it('kills strays left behind by a leader that exits normally', async () => {
    const lines = new LineBuffer();
    await run('sh', ['-c', 'sleep 30 & echo $!'], { cwd: dir, timeoutMs: 5000, stdoutLines: lines });
    const grandchild = Number(lines.drain()[0]);
    expect(await eventually(() => !isAlive(grandchild))).toBe(true);
  });

  it('maps an allocation beyond the memory cap to engine_memory_exceeded', async () => {
    const result = await run('python3', ['-c', 'x = bytearray(1024 * 1024 * 1024)'], {
      cwd: dir,
      timeoutMs: 20_000,
      limits: { memoryBytes: 256 * 1024 * 1024 },
    });
    expect(result.limitHit).toBe('memory');
    expect(() => throwIfLimitHit(result)).toThrow(
      expect.objectContaining({ code: 'engine_memory_exceeded' }),
    );
  });

  it('a missing program is engine_unavailable, with or without limits', async () => {
    await expect(run('no-such-engine-xyz', [], { cwd: dir, timeoutMs: 1000 })).rejects.toMatchObject({
      code: 'engine_unavailable',
    });
    await expect(
      run('no-such-engine-xyz', [], { cwd: dir, timeoutMs: 1000, limits: { memoryBytes: 1 << 30 } }),
    ).rejects.toMatchObject({ code: 'engine_unavailable' });
  });

  it('hands a secret over stdin', async () => {
    const result = await run('sh', ['-c', 'read pw; echo "got $pw"'], {
      cwd: dir,
      timeoutMs: 5000,
      stdin: 'hôtel\n',
      captureStdout: true,
    });
    expect(result.stdout).toBe('got hôtel\n');
  });
});

describe('withWorkDir and writeSecretFile', () => {
  it('writes secrets 0600 in a 0700 dir and removes both afterwards', async () => {
    let seen = '';
    let secret = '';
    await withWorkDir(dir, async (work) => {
      seen = work;
      expect((await stat(work)).mode & 0o777).toBe(0o700);
      secret = await writeSecretFile(work, 'hunter2');
      expect((await stat(secret)).mode & 0o777).toBe(0o600);
      expect(readFileSync(secret, 'utf8')).toBe('hunter2');
    });
    await expect(stat(seen)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(secret)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('makes a missing parent, and removes subdirectories and links without following them', async () => {
    const parent = path.join(dir, `missing-${Date.now()}`, 'tmp');
    const outside = path.join(dir, `outside-${Date.now()}`);
    await mkdir(outside);
    await writeFile(path.join(outside, 'keep.txt'), 'keep');
    let seen = '';
    await withWorkDir(parent, async (work) => {
      seen = work;
      await mkdir(path.join(work, 'pages', 'deep'), { recursive: true });
      await writeFile(path.join(work, 'pages', 'deep', 'p1.png'), 'x');
      await writeFile(path.join(work, 'out.pdf'), 'x');
      await symlink(outside, path.join(work, 'link-to-outside'));
    });
    await expect(stat(seen)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('keep');
  });

  it('hands a job the dir made ahead after the last one, 0700 with only its made file, and never one older than 1 s', async () => {
    const parent = path.join(dir, `ahead-${Date.now()}`);
    const first = openWorkDir(parent);
    const others = () => readdirSync(parent).filter((name) => path.join(parent, name) !== first);
    expect(await eventually(() => others().length === 1)).toBe(true);
    // Made on a pool thread, then its file: offered when both are on disk.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const ahead = path.join(parent, others()[0]!);
    const second = openWorkDir(parent);
    expect(second).toBe(ahead);
    expect(readdirSync(second)).toEqual(['.made-ahead']);
    expect((await stat(second)).mode & 0o777).toBe(0o700);
    // The job's output takes the made file: the same inode under the new name, once.
    const made = await stat(path.join(second, '.made-ahead'));
    expect(made.size).toBe(0);
    expect(made.mode & 0o777).toBe(0o600);
    const output = path.join(second, 'merged-0.pdf');
    expect(takeMadeFile(output)).toBe(true);
    expect((await stat(output)).ino).toBe(made.ino);
    expect(readdirSync(second)).toEqual(['merged-0.pdf']);
    expect(takeMadeFile(path.join(second, 'other.pdf'))).toBe(false);
    // A dir made on the spot (none ready) has no made file to give.
    expect(takeMadeFile(path.join(first, 'out.pdf'))).toBe(false);
    // Left waiting past its age, the one made ahead after `second` is removed, not handed out.
    expect(await eventually(() => readdirSync(parent).length === 3)).toBe(true);
    const stale = readdirSync(parent)
      .map((name) => path.join(parent, name))
      .find((d) => d !== first && d !== second)!;
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    const third = openWorkDir(parent);
    expect(third).not.toBe(stale);
    expect(await eventually(() => !existsSync(stale))).toBe(true);
    for (const work of [first, second, third]) await removeWorkDir(work);
  });

  it('hands the next job a succeeded job’s dir, emptied and renamed; never a failed job’s or one that is not empty', async () => {
    const parent = path.join(dir, `reuse-${Date.now()}`);
    const first = openWorkDir(parent);
    await writeFile(path.join(first, 'input-0.pdf'), 'x');
    const inode = (await stat(first)).ino;
    // Let the dir made ahead arrive, then take it; the next one made ahead arrives before `first`
    // comes back, so `first`'s is the last offered and the first handed out.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const busy = openWorkDir(parent);
    const readyDirs = () =>
      readdirSync(parent)
        .map((name) => path.join(parent, name))
        .filter((each) => each !== busy && existsSync(path.join(each, '.made-ahead')));
    expect(await eventually(() => readyDirs().length === 1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await removeWorkDir(first, { reuse: true });
    expect(existsSync(first)).toBe(false);
    expect(await eventually(() => readyDirs().length === 2)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const reused = openWorkDir(parent);
    expect(reused).not.toBe(first);
    expect((await stat(reused)).ino).toBe(inode);
    expect(readdirSync(reused)).toEqual(['.made-ahead']);
    expect((await stat(reused)).mode & 0o777).toBe(0o700);
    // Not taken by the job: kept, the same file, when the dir is offered again.
    const madeInode = (await stat(path.join(reused, '.made-ahead'))).ino;

    // Without `reuse` (a failed job), the dir goes.
    await removeWorkDir(busy);
    expect(existsSync(busy)).toBe(false);
    // Offered, then written to before a job takes it: removed, not handed out.
    await removeWorkDir(reused, { reuse: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const offered = readdirSync(parent).map((name) => path.join(parent, name));
    const inodes = await Promise.all(
      offered.map(async (each) => (await stat(path.join(each, '.made-ahead'))).ino),
    );
    expect(inodes).toContain(madeInode);
    // One written to, one whose made file was written to: neither is handed out.
    await writeFile(path.join(offered[0]!, 'late.txt'), 'x');
    for (const each of offered.slice(1)) await writeFile(path.join(each, '.made-ahead'), 'x');
    const next = openWorkDir(parent);
    expect(offered).not.toContain(next);
    expect(readdirSync(next)).toEqual([]);
    expect(await eventually(() => offered.every((each) => !existsSync(each)))).toBe(true);
    await removeWorkDir(next);
  });

  it('removes the dir when the work throws', async () => {
    let seen = '';
    await expect(
      withWorkDir(dir, async (work) => {
        seen = work;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(stat(seen)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
