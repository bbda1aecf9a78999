// Builds a real ToolContext for engine-tier tests: corpus files copied into a fresh private work
// dir, real engines, and a progress reporter whose readings are recorded as a job runner would see
// them, only more often.
import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CallProgress, ProgressSlot, type ProgressTracker } from '../../src/engines/call-options.js';
import { createEngines } from '../../src/engines/index.js';
import { openAndRun } from '../../src/tools/framework/inputs.js';
import {
  createProgressReporter,
  type Progress,
  type ToolProgress,
} from '../../src/tools/framework/progress.js';
import type {
  AnyToolDefinition,
  RunContext,
  ToolInput,
  ToolLimits,
} from '../../src/tools/framework/types.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** CI checks the corpus out beside the repository. */
export const corpusDir = path.resolve(repoRoot, '../shared/corpus');

export const corpus = (name: string) => path.join(corpusDir, name);

const DEFAULT_LIMITS: ToolLimits = { maxPages: 5_000, timeoutMs: 60_000, memoryBytes: 2 * 1024 ** 3 };

export interface TestContext<O> {
  /** What the job runner hands over; `openAndRun` opens the inputs as the tool declares, as it does. */
  ctx: RunContext<O>;
  /**
   * Every rise of the tool's progress, in order: the reporter read as the tool reports (a step, its
   * own count, a new engine call), every few milliseconds meanwhile and once at the end.
   */
  emitted: Progress[];
  abort: AbortController;
  /** Takes the last reading and stops reading (cleanup does it too). */
  stopRecording(): void;
  cleanup(): Promise<void>;
}

export interface ContextSpec<O> {
  tool: AnyToolDefinition;
  /** Corpus file names or absolute paths, in upload order. */
  files: string[];
  options: O;
  limits?: Partial<ToolLimits>;
}

export async function makeToolContext<O>(spec: ContextSpec<O>): Promise<TestContext<O>> {
  const workDir = await mkdtemp(path.join(tmpdir(), 'quire-test-'));
  const inputs: ToolInput[] = [];
  for (const [i, file] of spec.files.entries()) {
    const source = path.isAbsolute(file) ? file : corpus(file);
    const target = path.join(workDir, `input-${i}.pdf`);
    await copyFile(source, target);
    const { size } = await stat(target);
    inputs.push({ path: target, name: path.basename(source), size, contentType: 'application/pdf' });
  }
  const limits = { ...DEFAULT_LIMITS, ...spec.limits };
  const { progress, emitted, stop } = recordingReporter(spec.tool.steps ?? { run: 100 });
  const abort = new AbortController();
  const ctx: RunContext<O> = {
    options: spec.options,
    inputs,
    workDir,
    signal: abort.signal,
    progress,
    engines: createEngines({ timeoutMs: limits.timeoutMs, memoryBytes: limits.memoryBytes }),
    limits,
  };
  const cleanup = () => {
    stop();
    return rm(workDir, { recursive: true, force: true });
  };
  return { ctx, emitted, abort, stopRecording: stop, cleanup };
}

/** How often the recorder reads while the tool runs: far more often than the job runner's second. */
const RECORD_EVERY_MS = 2;

/**
 * An engine call's slot that is read once more before a new tracker replaces the one it holds (a
 * tool's next run of pages), so the run that ended is recorded however fast it went.
 */
class RecordingSlot extends ProgressSlot {
  constructor(
    private readonly real: ProgressSlot,
    private readonly record: () => void,
  ) {
    super();
  }

  override set(tracker: ProgressTracker): void {
    this.record();
    this.real.set(tracker);
  }

  override read(): CallProgress | undefined {
    return this.real.read();
  }
}

/** The real reporter, each reading that rose kept in `emitted`. */
function recordingReporter(steps: Readonly<Record<string, number>>) {
  const reporter = createProgressReporter(steps);
  const emitted: Progress[] = [];
  const record = () => {
    const now = reporter.read();
    if (now.percent > (emitted.at(-1)?.percent ?? 0)) emitted.push(now);
  };
  const timer = setInterval(record, RECORD_EVERY_MS).unref();
  const progress: ToolProgress = {
    step(name) {
      record();
      reporter.step(name);
      record();
    },
    fraction(done, total) {
      reporter.fraction(done, total);
      record();
    },
    engineSlot() {
      record();
      return new RecordingSlot(reporter.engineSlot(), record);
    },
  };
  let stopped = false;
  const stop = () => {
    if (!stopped) record();
    stopped = true;
    clearInterval(timer);
  };
  return { progress, emitted, stop };
}

/** Real engines whose observer reports each qpdf run's number (what /metrics counts). */
function enginesCountingQpdf(onQpdfRun: (count: number) => void, qpdfForkServer = true) {
  let qpdfRuns = 0;
  return createEngines({
    qpdfForkServer,
    timeoutMs: 60_000,
    memoryBytes: 2 * 1024 ** 3,
    durations: {
      observe: ({ engine }) => {
        if (engine === 'qpdf') onQpdfRun(++qpdfRuns);
      },
    },
  });
}

/**
 * Opens and runs `tool` on `ctx` with real engines whose observer counts the qpdf runs, for the
 * tests that hold a tool to a number of engine runs; `qpdfForkServer` false runs qpdf without its
 * forkserver, as a server without the built helper does.
 */
export async function openAndRunCountingQpdf<O>(
  tool: AnyToolDefinition,
  ctx: RunContext<O>,
  qpdfForkServer = true,
) {
  let qpdfRuns = 0;
  const engines = enginesCountingQpdf((count) => {
    qpdfRuns = count;
  }, qpdfForkServer);
  const output = await openAndRun(tool, { ...ctx, engines });
  return { output, qpdfRuns };
}

/**
 * Opens and runs `tool` on `test`'s context and cancels the job as its first qpdf run ends, while
 * the tool's other runs are still going; `qpdfRuns` reads how many there were.
 */
export function openAndRunCanceledAtFirstQpdfRun<O>(tool: AnyToolDefinition, test: TestContext<O>) {
  let qpdfRuns = 0;
  const engines = enginesCountingQpdf((count) => {
    qpdfRuns = count;
    if (count === 1) test.abort.abort(new Error('canceled by the test'));
  });
  return { running: openAndRun(tool, { ...test.ctx, engines }), qpdfRuns: () => qpdfRuns };
}

/** Runs `tool` on `files` and returns its output plus the context (caller cleans up). */
export async function runTool<O>(
  tool: AnyToolDefinition,
  files: string[],
  options: O,
  limits?: Partial<ToolLimits>,
) {
  const test = await makeToolContext({ tool, files, options, ...(limits ? { limits } : {}) });
  try {
    const output = await openAndRun(tool, test.ctx);
    test.stopRecording();
    return { ...test, output };
  } catch (err) {
    await test.cleanup();
    throw err;
  }
}
