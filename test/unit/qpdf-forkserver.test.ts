// The qpdf forkserver (src/engines/qpdf/forkserver/) through the real runner and engine spawner:
// every qpdf command line the engine uses answers as the qpdf program answers it (exit code, stdout,
// stderr, progress), under the same caps and kills, and a forkserver that cannot run falls back to
// starting qpdf.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { forkServerFor, QPDF_FORKSERVER, qpdfForkServer } from '../../src/engines/qpdf/forkserver/binary.js';
import { LineBuffer } from '../../src/process/line-buffer.js';
import { type RunOptions, type RunResult, run } from '../../src/process/runner.js';
import { corpusFile } from '../support/corpus.js';
import { eventually, isAlive } from '../support/process-state.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'quire-forkserver-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MiB = 1024 * 1024;
const small = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
const fourteen = corpusFile('pdfjs__tracemonkey.pdf');
const encrypted = corpusFile('qpdf__enc-R2-V1-U-view-O-master.pdf');
const notPdf = corpusFile('ocrmypdf__invalid.pdf');

function options(forkServer: string | undefined, extra: Partial<RunOptions> = {}): RunOptions {
  return {
    cwd: dir,
    timeoutMs: 30_000,
    limits: { memoryBytes: 2048 * MiB, cpuSeconds: 60 },
    captureStdout: true,
    ...(forkServer ? { forkServer } : {}),
    ...extra,
  };
}

/** Runs `args` with qpdf both ways; the output file (if any) is `out` with the way's suffix. */
async function bothWays(args: (out: string) => string[]): Promise<[RunResult, RunResult]> {
  const lines = [new LineBuffer(100_000), new LineBuffer(100_000)] as const;
  const forked = await run('qpdf', args(path.join(dir, 'forked.pdf')), {
    ...options(QPDF_FORKSERVER),
    stdoutLines: lines[0],
  });
  const started = await run('qpdf', args(path.join(dir, 'started.pdf')), {
    ...options(undefined),
    stdoutLines: lines[1],
  });
  expect(lines[0].drain().length).toBe(lines[1].drain().length);
  return [forked, started];
}

/**
 * What the engine reads of a run. A usage error is the one message that differs: the qpdf program
 * adds a "For help:" block around it, libqpdf's entry point prints the message line alone.
 */
const same = (result: RunResult) => ({
  exitCode: result.exitCode,
  signal: result.signal,
  stdout: result.stdout.replaceAll(/forked|started/g, 'out'),
  stderrTail: result.stderrTail
    .replaceAll(/forked|started/g, 'out')
    .replace(/^\n?(qpdf: .*\n)\nFor help:\n( {2}qpdf --help.*\n)+\n?$/, '$1'),
  limitHit: result.limitHit,
});

it('is built (scripts/build-helpers.sh) against the installed qpdf', () => {
  expect(qpdfForkServer()).toBe(QPDF_FORKSERVER);
});

it('serves only the installed qpdf, and not when QUIRE_QPDF_FORKSERVER is false', () => {
  expect(forkServerFor('qpdf')).toBe(QPDF_FORKSERVER);
  expect(forkServerFor('qpdf', false)).toBeNull();
  expect(forkServerFor('/opt/other/qpdf')).toBeNull();
  expect(loadConfig({ QUIRE_DATA_DIR: dir, QUIRE_QPDF_FORKSERVER: 'false' }).limits.qpdfForkServer).toBe(
    false,
  );
  expect(loadConfig({ QUIRE_DATA_DIR: dir }).limits.qpdfForkServer).toBe(true);
});

describe('a qpdf command line through the forkserver answers as the qpdf program does', () => {
  it.each<[string, (out: string) => string[]]>([
    ['a page count', () => ['--show-npages', fourteen]],
    ['JSON of the pages', () => ['--json', '--json-key=pages', small]],
    ['a rotation with progress', (out) => ['--progress', small, '--rotate=+90:1-z', out]],
    ['a merge', (out) => ['--empty', '--pages', fourteen, small, '--', out]],
    ['an encrypted file without its password', () => ['--show-npages', encrypted]],
    ['an encrypted file with it', (out) => ['--password=view', '--decrypt', encrypted, out]],
    ['a file that is not a PDF', () => ['--show-npages', notPdf]],
    ['a missing file', () => ['--show-npages', path.join(dir, 'nothing-here.pdf')]],
    ['an unknown option', () => ['--no-such-option']],
  ])('%s', async (_, args) => {
    const [forked, started] = await bothWays(args);
    expect(same(forked)).toEqual(same(started));
  });

  it('refuses an argument holding a NUL byte as a started run does, never splitting it in two', async () => {
    const args = ['--show-npages', `${fourteen}\u0000--version`];
    const forked = await run('qpdf', args, options(QPDF_FORKSERVER)).catch((error: unknown) => error);
    const started = await run('qpdf', args, options(undefined)).catch((error: unknown) => error);
    expect(forked).toBeInstanceOf(Error);
    expect(String(forked)).toBe(String(started));
  });

  it('writes the same file, bar its random /ID', async () => {
    await bothWays((out) => ['--static-id', fourteen, '--rotate=+90:2-4', out]);
    const forked = readFileSync(path.join(dir, 'forked.pdf'));
    expect(forked.equals(readFileSync(path.join(dir, 'started.pdf')))).toBe(true);
  });

  it('runs in the forkserver’s child, the forkserver being this process’s own child (no spawner between)', async () => {
    await run('qpdf', ['--show-npages', small], options(QPDF_FORKSERVER));
    expect(ourForkServer()).toBeDefined();
  });

  it('starts with a deep malloc thread cache (GLIBC_TUNABLES), an operator’s own tunables after it', async () => {
    await run('qpdf', ['--show-npages', small], options(QPDF_FORKSERVER));
    const environ = readFileSync(`/proc/${ourForkServer()}/environ`, 'utf8').split('\0');
    const tunables = environ.find((entry) => entry.startsWith('GLIBC_TUNABLES='));
    const theirs = process.env.GLIBC_TUNABLES;
    expect(tunables).toBe(`GLIBC_TUNABLES=glibc.malloc.tcache_count=1000${theirs ? `:${theirs}` : ''}`);
  });
});

/** Field `index` (0 = state, 1 = parent, 2 = process group) of a live process's stat; NaN when gone. */
function statField(pid: number, index: number): number | string {
  try {
    const field = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[index]!;
    return index === 0 ? field : Number(field);
  } catch {
    return Number.NaN;
  }
}

/** Processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((child) => statField(child, 1) === pid);
}

/**
 * The forkserver's children that are runs: a run leads its own process group (run.c), the spare
 * waiting for the next one is still in the forkserver's (spare.c).
 */
const runsOf = (server: number) => childrenOf(server).filter((pid) => statField(pid, 2) === pid);
/** The forkserver's spare, if one is waiting. */
const spareOf = (server: number) =>
  childrenOf(server).find((pid) => statField(pid, 2) !== pid && statField(pid, 0) !== 'Z');

/** The spare once one waits (it is forked right after the forkserver starts and after each handover). */
async function waitForSpare(server: number): Promise<number> {
  expect(await eventually(() => spareOf(server) !== undefined)).toBe(true);
  return spareOf(server)!;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** This test process's forkserver: the service (here the test) starts it and asks it itself. */
function ourForkServer(): number | undefined {
  return childrenOf(process.pid).find((pid) => cmdline(pid).startsWith(`${QPDF_FORKSERVER}\0`));
}

describe('caps and kills', () => {
  it('a run over its memory cap fails as memory (engine_memory_exceeded)', async () => {
    const result = await run(
      'qpdf',
      ['--empty', '--pages', fourteen, fourteen, fourteen, '--', path.join(dir, 'big.pdf')],
      options(QPDF_FORKSERVER, { limits: { memoryBytes: 8 * MiB, cpuSeconds: 60 } }),
    );
    expect(result.limitHit).toBe('memory');
  });

  it('a run past its time is killed and fails `timeout`; the forkserver stays', async () => {
    await run('qpdf', ['--show-npages', small], options(QPDF_FORKSERVER));
    const server = ourForkServer()!;
    // A run that never ends by itself: qpdf opening a FIFO no one writes blocks in open(). (Real work
    // was not: 8,400 pages took 0.2 s forked on a quiet machine and over a second under load.)
    const fifo = path.join(dir, 'never-written.pdf');
    spawnSync('mkfifo', [fifo]);
    // The child is looked for every 5 ms: it prints nothing before it is killed.
    let running: number[] = [];
    const watch = setInterval(() => {
      if (running.length === 0) running = runsOf(server);
    }, 5);
    const slow = run('qpdf', ['--check', fifo], options(QPDF_FORKSERVER, { timeoutMs: 1_000 }));
    await expect(slow).rejects.toMatchObject({ code: 'timeout' });
    clearInterval(watch);
    expect(running.length).toBe(1);
    await eventually(() => !isAlive(running[0]!));
    expect(isAlive(server)).toBe(true);
  });

  it('runs a request in the spare forked before it, and forks the next spare once the run has ended', async () => {
    await run('qpdf', ['--show-npages', small], options(QPDF_FORKSERVER));
    const server = ourForkServer()!;
    const spare = await waitForSpare(server);
    const fifo = path.join(dir, 'never-written-spare.pdf');
    spawnSync('mkfifo', [fifo]);
    const slow = run('qpdf', ['--check', fifo], options(QPDF_FORKSERVER, { timeoutMs: 1_500 }));
    // The spare became the run: its own process group.
    expect(await eventually(() => runsOf(server).includes(spare))).toBe(true);
    await expect(slow).rejects.toMatchObject({ code: 'timeout' });
    expect(await eventually(() => !isAlive(spare))).toBe(true);
    expect(await waitForSpare(server)).not.toBe(spare);
  });

  it('a spare killed while it waits is replaced; the next run answers as before', async () => {
    await run('qpdf', ['--show-npages', small], options(QPDF_FORKSERVER));
    const server = ourForkServer()!;
    const spare = await waitForSpare(server);
    process.kill(spare, 'SIGKILL');
    expect(await eventually(() => !isAlive(spare))).toBe(true);
    const result = await run('qpdf', ['--show-npages', fourteen], options(QPDF_FORKSERVER));
    expect(result).toMatchObject({ exitCode: 0, stdout: '14\n' });
    expect(await eventually(() => (spareOf(server) ?? spare) !== spare)).toBe(true);
    expect(isAlive(server)).toBe(true);
  });

  it('removes the socket directories of spawners that are gone when it starts one', async () => {
    const gone = spawnSync('true').pid;
    const orphan = path.join(tmpdir(), `quire-forkserver-${gone}-test`);
    const ours = path.join(tmpdir(), `quire-forkserver-${process.pid}-test`);
    await mkdir(orphan);
    await mkdir(ours);
    try {
      // A binary not used before in this process: a forkserver of its own, so a start (and a sweep).
      const result = await run('qpdf', ['--show-npages', small], options(path.join(dir, 'new-forkserver')));
      expect(result.exitCode).toBe(0);
      expect(existsSync(orphan)).toBe(false);
      expect(existsSync(ours)).toBe(true);
    } finally {
      await rm(orphan, { recursive: true, force: true });
      await rm(ours, { recursive: true, force: true });
    }
  });

  it('falls back to starting qpdf when the forkserver is not ready within 5 s', async () => {
    const silent = path.join(dir, 'silent-forkserver');
    await writeFile(silent, '#!/bin/sh\nexec sleep 60\n', { mode: 0o755 });
    const started = Date.now();
    const result = await run('qpdf', ['--show-npages', fourteen], options(silent));
    expect(result).toMatchObject({ exitCode: 0, stdout: '14\n' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    // The silent one (now `sleep 60`) was killed, not left waiting.
    const sleeping = () =>
      childrenOf(process.pid)
        .flatMap(childrenOf)
        .filter((pid) => cmdline(pid) === 'sleep\u000060\u0000');
    expect(await eventually(() => sleeping().length === 0)).toBe(true);
  }, 15_000);

  it('falls back to starting qpdf when the forkserver cannot run', async () => {
    const missing = path.join(dir, 'no-forkserver');
    const broken = path.join(dir, 'broken-forkserver');
    await writeFile(broken, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    // Prints something else than "ready", then waits: refused at once (and killed).
    const wrong = path.join(dir, 'wrong-forkserver');
    await writeFile(wrong, '#!/bin/sh\necho hello\nexec sleep 60\n', { mode: 0o755 });
    for (const forkServer of [missing, broken, wrong]) {
      const result = await run('qpdf', ['--show-npages', fourteen], options(forkServer));
      expect(result).toMatchObject({ exitCode: 0, stdout: '14\n' });
    }
  });
});
