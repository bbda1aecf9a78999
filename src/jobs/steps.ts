// Runs a job's steps in a chain inside its work dir: each step's output is the next step's input,
// and a step whose output packs several files (split, pdf-to-images) fans out, the rest of the chain
// running once per file and the final files coming back as one ZIP (docs/api.md §2, steps).
import { stat } from 'node:fs/promises';
import type { Engines } from '../engines/index.js';
import { QuireError } from '../errors/quire-error.js';
import type { StepRef } from '../model/job.js';
import { openAndRun } from '../tools/framework/inputs.js';
import { workFile } from '../tools/framework/output-name.js';
import { createProgressReporter } from '../tools/framework/progress.js';
import type {
  InputType,
  PublishedTool,
  ToolInput,
  ToolLimits,
  ToolOutput,
} from '../tools/framework/types.js';
import { writeZip, type ZipEntry } from '../tools/framework/zip.js';
import type { JobBudget } from './job-budget.js';
import type { JobProgress } from './progress-writer.js';

export interface PlannedStep {
  tool: PublishedTool;
  options: Record<string, unknown>;
}

export interface StepsContext {
  workDir: string;
  signal: AbortSignal;
  engines: Engines;
  limits: ToolLimits;
  /** The plan's whole-job limits, spent by every step and branch. */
  budget: JobBudget;
  /** The owning account: engines keep nothing warm across accounts (RunContext.account). */
  account?: string;
  /**
   * The whole job's progress (0–100), told each step as it starts: each step has an equal share,
   * split again per file on a fan-out. The job runner reads it; no step calls up.
   */
  progress: JobProgress;
  /** Called as each step starts (on a fan-out, once per file). */
  onStep(step: StepRef): void;
}

/** What one step did: its facts, or each file's facts when it ran once per file. */
export type StepRecord =
  | { tool: string; facts: Record<string, unknown> }
  | { tool: string; files: { name: string; facts: Record<string, unknown> }[] };

export interface StepsOutcome {
  output: ToolOutput;
  /**
   * Each step's record, for a job of several steps. A one-tool job's facts are its tool's alone
   * (run-job.ts), so it gets none and its output costs no stat for a size nobody shows.
   */
  steps: StepRecord[];
}

export async function runSteps(
  steps: readonly PlannedStep[],
  inputs: ToolInput[],
  ctx: StepsContext,
): Promise<StepsOutcome> {
  const chain = new StepChain(steps, ctx);
  const output = await chain.from(0, inputs, 0, 100);
  return { output, steps: steps.length > 1 ? chain.records() : [] };
}

class StepChain {
  private readonly runs: { name?: string; facts: Record<string, unknown> }[][];

  constructor(
    private readonly steps: readonly PlannedStep[],
    private readonly ctx: StepsContext,
  ) {
    this.runs = steps.map(() => []);
  }

  /**
   * Steps `first`… on `inputs`, over the progress span [start, end). `file` names a fan-out branch;
   * `password` opens the inputs of a step after the first (the one the chain knows: protect's, or
   * the first step's input password, which an output that kept its encryption still opens with).
   */
  async from(
    first: number,
    inputs: ToolInput[],
    start: number,
    end: number,
    file?: string,
    password?: string,
  ): Promise<ToolOutput> {
    const share = (end - start) / (this.steps.length - first);
    let current = inputs;
    let known = password;
    for (let index = first; ; index++) {
      const at = start + (index - first) * share;
      const output = await this.runOne(index, current, at, share, { file, password: known });
      if (index === this.steps.length - 1) return output;
      // Declared parts fan out even when there are none (no images found): the result is then an
      // empty ZIP, as the tool alone would have given, not the archive fed to the next tool.
      if (output.parts) return this.fanOut(index + 1, output, at + share, end);
      current = [await this.inputFor(index + 1, output)];
      known = output.password;
    }
  }

  records(): StepRecord[] {
    return this.steps.map((step, index) => {
      const runs = this.runs[index] ?? [];
      const single = runs.length === 1 && runs[0]?.name === undefined;
      return single
        ? { tool: step.tool.name, facts: runs[0]!.facts }
        : { tool: step.tool.name, files: runs.map((r) => ({ name: r.name ?? '', facts: r.facts })) };
    });
  }

  private async runOne(
    index: number,
    inputs: ToolInput[],
    start: number,
    share: number,
    { file, password }: { file: string | undefined; password: string | undefined },
  ): Promise<ToolOutput> {
    const { tool, options } = this.steps[index]!;
    const { ctx } = this;
    ctx.signal.throwIfAborted();
    ctx.onStep({ index, tool: tool.name });
    const pagesLeft = ctx.budget.pagesLeft(index);
    const limits: ToolLimits = {
      ...ctx.limits,
      maxPages: Math.min(ctx.limits.maxPages, pagesLeft),
      timeoutMs: ctx.budget.engineTimeoutMs(ctx.limits.timeoutMs),
    };
    const progress = createProgressReporter(tool.steps ?? { run: 100 });
    ctx.progress.enter(progress, start, share);
    const output = await openAndRun(tool, {
      options,
      inputs,
      workDir: ctx.workDir,
      signal: ctx.signal,
      engines: ctx.engines,
      limits,
      ...(ctx.account !== undefined ? { account: ctx.account } : {}),
      ...(index > 0 && password !== undefined ? { inputPassword: password } : {}),
      progress,
    }).catch((error: unknown) => {
      throw wholeJobPages(error, pagesLeft, ctx.limits.maxPages);
    });
    this.countPages(index, output.inputPages ?? [], output);
    if (this.steps.length === 1) return output;
    const facts = {
      input_size: inputs.reduce((sum, input) => sum + input.size, 0),
      output_size: (await stat(output.path)).size,
      ...pageFact(output.inputPages ?? []),
      ...output.facts,
    };
    this.runs[index]!.push(file === undefined ? { facts } : { name: file, facts });
    return output;
  }

  /** The step's opened inputs at its level; the last step's own page count at the outputs' level. */
  private countPages(index: number, pages: readonly number[], output: ToolOutput): void {
    this.ctx.budget.countPages(
      index,
      pages.reduce((a, b) => a + b, 0),
    );
    const written = output.facts?.pages;
    if (index === this.steps.length - 1 && typeof written === 'number')
      this.ctx.budget.countPages(index + 1, written);
  }

  /** The rest of the chain once per packed file; their final outputs make the job's ZIP. */
  private async fanOut(next: number, packed: ToolOutput, start: number, end: number): Promise<ToolOutput> {
    const parts = packed.parts ?? [];
    this.ctx.budget.countParts(parts.length);
    const size = (end - start) / Math.max(1, parts.length);
    const finals: ZipEntry[] = [];
    for (const [k, part] of parts.entries()) {
      const input = await this.inputFor(next, part);
      const span = [start + k * size, start + (k + 1) * size] as const;
      const final = await this.from(next, [input], ...span, part.name, packed.password);
      finals.push({ path: final.path, name: final.name });
    }
    const sizes = await Promise.all(finals.map((f) => stat(f.path).then((s) => s.size)));
    this.ctx.budget.checkOutput(sizes.reduce((a, b) => a + b, 0));
    const zip = workFile(this.ctx.workDir, 'steps', 'zip');
    await writeZip(finals, zip, this.ctx.signal);
    return { path: zip, name: packed.name, contentType: 'application/zip' };
  }

  /** A step's file as the next step's input, refused when that tool does not take its type. */
  private async inputFor(
    index: number,
    file: { path: string; name: string; contentType: string },
  ): Promise<ToolInput> {
    const { tool } = this.steps[index]!;
    const contentType = file.contentType as InputType;
    if (!tool.inputs.accepts.includes(contentType)) {
      throw new QuireError(
        'unsupported_file',
        `Step ${index + 1} (${tool.name}) does not take ${file.contentType}, which the step before it made.`,
        { extras: { accepts: tool.inputs.accepts } },
      );
    }
    const { size } = await stat(file.path);
    return { path: file.path, name: file.name, size, contentType };
  }
}

/**
 * A page limit a step met because earlier branches spent the job's pages: said as the job's limit,
 * not as the few pages this branch had left.
 */
function wholeJobPages(error: unknown, left: number, maxPages: number): unknown {
  if (!(error instanceof QuireError) || error.code !== 'limit_pages_exceeded' || left >= maxPages)
    return error;
  return new QuireError(
    'limit_pages_exceeded',
    `The job's steps make more than ${maxPages} pages across their branches; the limit is ${maxPages}`,
    { extras: { limit_pages: maxPages } },
  );
}

/** The step's `pages` fact: its inputs' pages, when someone counted them. */
function pageFact(pages: readonly number[]): { pages?: number } {
  return pages.length > 0 ? { pages: pages.reduce((a, b) => a + b, 0) } : {};
}
