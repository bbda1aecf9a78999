// The set-up engine-tier files share, written once: tool runs and tool contexts (tool-context.ts) made
// through it, and any cleanup handed to it, are removed after each test of the file or describe block
// that calls useToolRuns, last made first.
import { afterEach } from 'vitest';
import type { AnyToolDefinition, ToolLimits } from '../../src/tools/framework/types.js';
import { type ContextSpec, makeToolContext, runTool, type TestContext } from './tool-context.js';

export interface ToolRuns {
  /** runTool: the tool opened and run on real engines; its work dir goes after the test. */
  run<O>(
    tool: AnyToolDefinition,
    files: string[],
    options: O,
    limits?: Partial<ToolLimits>,
  ): ReturnType<typeof runTool<O>>;
  /** makeToolContext, for a test that runs the tool itself; its work dir goes after the test. */
  context<O>(spec: ContextSpec<O>): Promise<TestContext<O>>;
  /** Anything else the test made: run after it with the rest. */
  onCleanup(cleanup: () => void | Promise<void>): void;
}

export function useToolRuns(): ToolRuns {
  const cleanups: Array<() => void | Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    async run(tool, files, options, limits) {
      const result = await runTool(tool, files, options, limits);
      cleanups.push(result.cleanup);
      return result;
    },
    async context(spec) {
      const test = await makeToolContext(spec);
      cleanups.push(test.cleanup);
      return test;
    },
    onCleanup(cleanup) {
      cleanups.push(cleanup);
    },
  };
}
