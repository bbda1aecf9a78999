// Builds a real ToolContext for engine-tier tests: corpus files copied into a fresh private work
// dir, real engines, and a progress reporter that records what it emits.
import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngines } from '../../src/engines/index.js';
import { openAndRun } from '../../src/tools/framework/inputs.js';
import { createProgressReporter, type Progress } from '../../src/tools/framework/progress.js';
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
  /** Every progress value the tool emitted, in order. */
  emitted: Progress[];
  abort: AbortController;
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
  const emitted: Progress[] = [];
  const abort = new AbortController();
  const ctx: RunContext<O> = {
    options: spec.options,
    inputs,
    workDir,
    signal: abort.signal,
    progress: createProgressReporter(spec.tool.steps ?? { run: 100 }, (p) => emitted.push(p)),
    engines: createEngines({ timeoutMs: limits.timeoutMs, memoryBytes: limits.memoryBytes }),
    limits,
  };
  return { ctx, emitted, abort, cleanup: () => rm(workDir, { recursive: true, force: true }) };
}

/** Real engines whose observer reports each qpdf run's number (what /metrics counts). */
function enginesCountingQpdf(onQpdfRun: (count: number) => void) {
  let qpdfRuns = 0;
  return createEngines({
    timeoutMs: 60_000,
    memoryBytes: 2 * 1024 ** 3,
    observe: (engine) => {
      if (engine === 'qpdf') onQpdfRun(++qpdfRuns);
    },
  });
}

/**
 * Opens and runs `tool` on `ctx` with real engines whose observer counts the qpdf runs, for the
 * tests that hold a tool to a number of engine runs.
 */
export async function openAndRunCountingQpdf<O>(tool: AnyToolDefinition, ctx: RunContext<O>) {
  let qpdfRuns = 0;
  const engines = enginesCountingQpdf((count) => {
    qpdfRuns = count;
  });
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
    return { ...test, output };
  } catch (err) {
    await test.cleanup();
    throw err;
  }
}
