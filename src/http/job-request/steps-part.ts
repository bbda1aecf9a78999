// The `steps` part of POST /jobs (docs/api.md §2): a JSON array of {tool, options}, checked whole
// before any file is read — every step's options against its tool's schema, and each step's output
// against what the next tool takes — with pointers such as /steps/2/options/level.

import { type FieldError, QuireError } from '../../errors/quire-error.js';
import type { JobStep } from '../../model/job.js';
import type { CatalogEntry, ToolCatalog } from '../../tools/framework/catalog.js';
import { INPUT_PASSWORD_OPTION } from '../../tools/framework/inputs.js';
import type { PublishedTool } from '../../tools/framework/types.js';
import { jsonShapeError } from './json-shape.js';
import { MAX_STEPS } from './limits.js';

export interface ParsedSteps {
  /** The first step: the job's `tool` and `options`, which the uploaded files go to. */
  entry: CatalogEntry;
  options: Record<string, unknown>;
  nextSteps: JobStep[];
}

/** The part of the spec a `steps` part fills in. */
export interface StepsTarget {
  readonly seen: ReadonlySet<string>;
  entry: CatalogEntry | undefined;
  options: Record<string, unknown> | undefined;
  nextSteps: JobStep[] | undefined;
}

/** The part as it was read: its text, or what the multipart plugin parsed from a JSON part. */
export type StepsValue = { text: string } | { parsed: unknown };

/**
 * A `steps` part, or a `tool`/`options` part after one: `steps` stands for `tool` and `options` (its
 * first step is them), so never both.
 */
export function readStepsPart(
  name: string,
  value: StepsValue,
  state: StepsTarget,
  catalog: ToolCatalog,
): void {
  if (name !== 'steps' || state.seen.has('tool') || state.seen.has('options')) {
    throw new QuireError('invalid_request', 'Send either a "steps" part or "tool" and "options", not both.', {
      errors: [{ field: name, detail: 'conflicts with the other form of the job' }],
    });
  }
  const parsed = parseStepsField(value, catalog);
  state.entry = parsed.entry;
  state.options = parsed.options;
  state.nextSteps = parsed.nextSteps;
}

export function parseStepsField(value: StepsValue, catalog: ToolCatalog): ParsedSteps {
  const raw = parseArray(value);
  const entries = raw.map((step, index) => stepEntry(step, index, catalog));
  const errors: FieldError[] = [];
  const options = raw.map((step, index) => {
    const checked = catalog.checkOptions(entries[index]!.tool.name, step.options ?? {});
    if (checked.ok) return checked.options;
    errors.push(...underStep(checked.errors, index));
    return {};
  });
  for (const [index, entry] of entries.entries()) {
    if (index > 0) errors.push(...chainErrors(entries[index - 1]!.tool, entry.tool, options[index]!, index));
  }
  if (errors.length > 0) throw new QuireError('invalid_options', 'The steps are not valid.', { errors });
  return {
    entry: entries[0]!,
    options: options[0]!,
    nextSteps: entries.slice(1).map((entry, i) => ({ tool: entry.tool.name, options: options[i + 1]! })),
  };
}

/** A step tool's field errors (pointers under `/options`) as pointers under `/steps/<index>`. */
export function underStep(errors: readonly FieldError[], index: number): FieldError[] {
  return errors.map((error) =>
    error.pointer === undefined ? error : { ...error, pointer: `/steps/${index}${error.pointer}` },
  );
}

/**
 * What makes a later step unable to follow the one before it: a file type it does not take, a need
 * for several files (a later step gets one), or the input `password` option, which opens the uploaded
 * files: a later step opens the step before's output with the password the job already knows (the
 * first step's, which an output keeps with its encryption, or protect's user password). A tool's own
 * secrets (protect's passwords, sign's certificate) are taken on any step and scrubbed with the
 * first step's (model/step-secrets.ts).
 */
function chainErrors(
  before: PublishedTool,
  tool: PublishedTool,
  options: Record<string, unknown>,
  index: number,
): FieldError[] {
  const errors: FieldError[] = [];
  const made = before.output.parts ?? [before.output.contentType];
  const refused = made.filter((type) => !tool.inputs.accepts.includes(type as never));
  if (refused.length > 0) {
    errors.push({
      pointer: `/steps/${index}/tool`,
      detail: `does not take ${refused.join(', ')}, which step ${index} (${before.name}) makes`,
    });
  }
  if (tool.inputs.minFiles > 1) {
    errors.push({
      pointer: `/steps/${index}/tool`,
      detail: `needs at least ${tool.inputs.minFiles} files; a step after the first gets one: run the steps before it as jobs of their own and give their results to one ${tool.name} job`,
    });
  }
  if (tool.inputs.passwordOption === undefined && Object.hasOwn(options, INPUT_PASSWORD_OPTION)) {
    errors.push({
      pointer: `/steps/${index}/options/${INPUT_PASSWORD_OPTION}`,
      detail:
        'is accepted on the first step only: a later step opens its input with the password the job already knows',
    });
  }
  errors.push(...underStep(tool.checkRequest?.(options, 1) ?? [], index));
  return errors;
}

interface RawStep {
  tool: string;
  options?: Record<string, unknown>;
}

function parseArray(value: StepsValue): RawStep[] {
  let parsed: unknown;
  if ('parsed' in value) parsed = value.parsed;
  else {
    try {
      parsed = JSON.parse(value.text);
    } catch {
      throw invalid('/steps', 'is not valid JSON');
    }
  }
  // The same bounds as options and metadata (depth, size, lone surrogates), before anything walks it.
  const shape = jsonShapeError(parsed);
  if (shape) throw invalid(`/steps${shape.pointer}`, shape.detail);
  if (!Array.isArray(parsed)) throw invalid('/steps', 'must be a JSON array of {tool, options}');
  if (parsed.length === 0 || parsed.length > MAX_STEPS) {
    throw invalid('/steps', `must hold 1 to ${MAX_STEPS} steps`);
  }
  return parsed.map((step: unknown, index) => {
    const pointer = `/steps/${index}`;
    if (step === null || typeof step !== 'object' || Array.isArray(step))
      throw invalid(pointer, 'must be an object {tool, options}');
    const { tool, options, ...rest } = step as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) throw invalid(`${pointer}/${extra}`, 'is not a step member (tool, options)');
    if (typeof tool !== 'string') throw invalid(`${pointer}/tool`, 'is required (a tool name)');
    if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options)))
      throw invalid(`${pointer}/options`, 'must be a JSON object');
    return { tool, ...(options === undefined ? {} : { options: options as Record<string, unknown> }) };
  });
}

function stepEntry(step: RawStep, index: number, catalog: ToolCatalog): CatalogEntry {
  const entry = catalog.get(step.tool);
  if (!entry) {
    throw new QuireError('unknown_tool', 'No tool has this name; GET /api/v1/tools lists them.', {
      errors: [{ pointer: `/steps/${index}/tool`, detail: 'is not a known tool' }],
    });
  }
  if (!entry.available) {
    throw new QuireError(
      'tool_unavailable',
      `The tool of step ${index + 1} is not available: ${entry.reason ?? 'engine missing'}.`,
    );
  }
  return entry;
}

function invalid(pointer: string, detail: string): QuireError {
  return new QuireError('invalid_request', `The "steps" part is not valid: ${pointer} ${detail}.`, {
    errors: [{ pointer, detail }],
  });
}
