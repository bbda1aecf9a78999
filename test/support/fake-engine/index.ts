// The fault-injection tier's engine: a module shaped like the real ones (name, probe, factory) whose
// program is fake-engine.sh, run through the real subprocess runner with the real limits. Tests
// register it next to the production list (createEngines/probeEngines `extra`, the test server's
// `extraEngines`); production never sees it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CallProgress,
  type EngineCallOptions,
  type EngineDefaults,
  type ProgressTracker,
  toRunOptions,
} from '../../../src/engines/call-options.js';
import type { Engines } from '../../../src/engines/index.js';
import { describeExit } from '../../../src/engines/program.js';
import type { EngineModule } from '../../../src/engines/types.js';
import { QuireError } from '../../../src/errors/quire-error.js';
import { LineBuffer } from '../../../src/process/line-buffer.js';
import { type RunResult, run, throwIfLimitHit } from '../../../src/process/runner.js';

const PROGRAM = fileURLToPath(new URL('./fake-engine.sh', import.meta.url));

export const FAKE_BEHAVIOURS = [
  'copy',
  'crash',
  'damaged',
  'garbage',
  'huge-stderr',
  'hang',
  'sigkill',
] as const;
export type FakeBehaviour = (typeof FAKE_BEHAVIOURS)[number];

/** The fake's own message for an input it "cannot read", mapped like a real engine's damage message. */
const FAKE_DAMAGED = /^fake: input is damaged$/m;
/** `fake: page 2 of 5`: the per-page progress line, as Ghostscript's `Page N`. */
const FAKE_PAGE = /^fake: page (\d+) of (\d+)$/;

export function fakeFailure(result: RunResult): QuireError | undefined {
  throwIfLimitHit(result);
  if (result.exitCode === 0) return undefined;
  if (FAKE_DAMAGED.test(result.stderrTail)) return new QuireError('pdf_corrupt');
  return new QuireError('engine_failed', describeExit('fake', result));
}

export function createFakeEngine(defaults: EngineDefaults) {
  return {
    /** Runs fake-engine.sh with `behaviour` on `input`, writing `output` (when it writes at all). */
    async run(
      behaviour: FakeBehaviour,
      input: string,
      output: string,
      call: EngineCallOptions,
    ): Promise<void> {
      const lines = call.progress ? new LineBuffer() : undefined;
      if (lines) call.progress?.set(new FakeTracker(lines));
      const result = await run(
        'sh',
        [PROGRAM, behaviour, path.resolve(input), path.resolve(output)],
        toRunOptions(defaults, call, lines ? { stderrLines: lines } : {}),
      );
      const failure = fakeFailure(result);
      if (failure) throw failure;
    },
  };
}

export type FakeEngine = ReturnType<typeof createFakeEngine>;

/** Pages finished as Ghostscript's tracker counts them; `readings` keeps each page line's reading. */
export class FakeTracker implements ProgressTracker {
  readonly readings: CallProgress[] = [];

  constructor(private readonly lines: LineBuffer) {}

  read(): CallProgress | undefined {
    for (const line of this.lines.drain()) {
      const page = FAKE_PAGE.exec(line);
      if (page) this.readings.push({ done: Number(page[1]) - 1, total: Number(page[2]) });
    }
    return this.readings.at(-1);
  }
}

export const fakeEngine: EngineModule<'fake', FakeEngine> = {
  name: 'fake',
  // Not a catalogue engine: statuses name the real programs (EngineName), so it reports none.
  probe: async () => [],
  // Same limits as every engine; its run times stay out of the duration metric, labelled by real programs.
  create: (settings) =>
    createFakeEngine({ timeoutMs: settings.timeoutMs, memoryBytes: settings.memoryBytes }),
};

/** The fake adapter among built engines; fails like a missing engine when it was not registered. */
export function fakeEngineOf(engines: Engines): FakeEngine {
  const fake = (engines as Record<string, unknown>)[fakeEngine.name];
  if (typeof fake !== 'object' || fake === null || !('run' in fake)) {
    throw new QuireError('engine_unavailable', 'the fake engine is not registered');
  }
  return fake as FakeEngine;
}
