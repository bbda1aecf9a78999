// Fault injection below the tools: the fake engine, registered in the engine list like the real
// modules and run by the real subprocess runner, crashes, hangs, floods stderr, writes garbage and
// dies of SIGKILL. Timeouts, cancels, group kills, the stderr bound and the error mapping are the
// production ones; a fault costs milliseconds instead of a slow Ghostscript run.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProgressSlot, type ProgressTracker } from '../../src/engines/call-options.js';
import { closeEngines, createEngines } from '../../src/engines/index.js';
import { processesMentioning } from '../support/cluster.js';
import {
  type FakeBehaviour,
  type FakeTracker,
  fakeEngine,
  fakeEngineOf,
} from '../support/fake-engine/index.js';

const engines = createEngines({ timeoutMs: 10_000, memoryBytes: 256 * 1024 ** 2, extra: [fakeEngine] });
const fake = fakeEngineOf(engines);

let workDir: string;
let input: string;
let output: string;
beforeEach(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'quire-fake-'));
  input = path.join(workDir, 'in.pdf');
  output = path.join(workDir, 'out.pdf');
  await writeFile(input, '%PDF-1.7 stand-in');
});
afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
});
afterAll(() => closeEngines(engines, [fakeEngine]));

async function until(check: () => boolean, ms = 2_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return check();
}

/** A slot that also keeps the tracker the engine set, for the test to look into. */
class KeptSlot extends ProgressSlot {
  kept: ProgressTracker | undefined;
  override set(tracker: ProgressTracker): void {
    this.kept = tracker;
    super.set(tracker);
  }
}

describe('the fake engine in the engine list', () => {
  it('is built beside the real modules and reports no status of its own', async () => {
    expect(engines.qpdf).toBeDefined();
    expect(await fakeEngine.probe()).toEqual([]);
  });

  it('runs through the runner: output written, per-page progress reported', async () => {
    const slot = new KeptSlot();
    await fake.run('copy', input, output, { workDir, progress: slot });
    expect(await readFile(output, 'utf8')).toBe('%PDF-1.7 stand-in');
    expect(slot.read()).toEqual({ done: 1, total: 2 });
    // Read once after the run: both page lines were waiting in the run's line buffer, in order.
    expect((slot.kept as FakeTracker).readings).toEqual([
      { done: 0, total: 2 },
      { done: 1, total: 2 },
    ]);
  });
});

describe('faults map to named errors', () => {
  const cases: [FakeBehaviour, string, string | undefined][] = [
    ['crash', 'engine_failed', 'fake exited with code 3'],
    ['sigkill', 'engine_failed', 'fake was killed by SIGKILL'],
    ['damaged', 'pdf_corrupt', undefined],
    // 8 MB of warnings before the fatal line: the bounded tail still ends with it.
    ['huge-stderr', 'pdf_corrupt', undefined],
  ];
  it.each(cases)('%s → %s', async (behaviour, code, detail) => {
    const failure = await fake.run(behaviour, input, output, { workDir }).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code });
    if (detail) expect(failure).toMatchObject({ message: detail });
    // The public detail names how the engine ended, never what it printed.
    expect(String((failure as Error).message)).not.toMatch(/complaint|internal error/);
  });

  it('a flood of stderr goes through the bounded tail without slowing the run down', async () => {
    const started = Date.now();
    await expect(fake.run('huge-stderr', input, output, { workDir })).rejects.toMatchObject({
      code: 'pdf_corrupt',
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('garbage output with exit 0 passes the engine and fails the real qpdf open as pdf_corrupt', async () => {
    await fake.run('garbage', input, output, { workDir });
    await expect(engines.qpdf.pageCount(output, { workDir })).rejects.toMatchObject({ code: 'pdf_corrupt' });
  });
});

describe('a hung engine', () => {
  it('is killed at its time limit with its grandchild, and fails with timeout', async () => {
    const started = Date.now();
    const running = fake.run('hang', input, output, { workDir, timeoutMs: 500 });
    // Leader and grandchild both name the work dir in their argv.
    expect(await until(() => processesMentioning(workDir).length >= 2)).toBe(true);
    await expect(running).rejects.toMatchObject({ code: 'timeout', extras: { timeout_ms: 500 } });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await until(() => processesMentioning(workDir).length === 0)).toBe(true);
  });

  it('is killed on cancel with its grandchild, and rejects with AbortedError, not a QuireError', async () => {
    const abort = new AbortController();
    const running = fake.run('hang', input, output, { workDir, signal: abort.signal });
    expect(await until(() => processesMentioning(workDir).length >= 2)).toBe(true);
    abort.abort(new Error('job canceled'));
    await expect(running).rejects.toMatchObject({ name: 'AbortedError' });
    expect(await until(() => processesMentioning(workDir).length === 0)).toBe(true);
  });
});
