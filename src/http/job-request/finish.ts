// The end of a job request: the spec and one job's inputs checked together (the tool's file count
// and types, checks of options against the number of files, the chain's least output against the
// plan) into the ReceivedJob the route makes a job of.
import { QuireError } from '../../errors/quire-error.js';
import type { JobStep } from '../../model/job.js';
import type { ToolCatalog } from '../../tools/framework/catalog.js';
import { type ChainLimits, checkLeastOutput } from '../../tools/framework/least-output.js';
import type { InputsSoFar, ReceivedJob, SpecSoFar } from './received.js';
import { unsupportedContent } from './refusals.js';
import { checkOptions } from './spec-parts.js';
import { underStep } from './steps-part.js';
import { TransferParts } from './transfer-parts.js';

export function finish(
  spec: SpecSoFar,
  received: InputsSoFar,
  catalog: ToolCatalog,
  plan: ChainLimits,
): ReceivedJob {
  const entry = spec.entry;
  if (!entry)
    throw new QuireError('invalid_request', 'The "tool" part (or "steps", or "recipe") is required.', {
      errors: [{ field: 'tool', detail: 'is required' }],
    });
  const options = spec.options ?? checkOptions(spec, catalog);
  const min = entry.tool.inputs.minFiles;
  if (received.inputs.length < min) {
    throw new QuireError('missing_file', `This tool needs at least ${min} file(s) as "file" parts.`, {
      extras: { min_files: min },
    });
  }
  // Files sent before the tool field were stored without knowing the tool's count and types.
  const declaredMax = entry.tool.inputs.maxFiles;
  if (typeof declaredMax === 'number' && received.inputs.length > declaredMax) {
    throw new QuireError('too_many_files', `At most ${declaredMax} file(s) per job for this tool.`, {
      extras: { max_files: declaredMax },
    });
  }
  const ownErrors = entry.tool.checkRequest?.(options, received.inputs.length) ?? [];
  const crossErrors = spec.nextSteps ? underStep(ownErrors, 0) : ownErrors;
  if (crossErrors.length > 0) {
    throw new QuireError('invalid_options', `The options are not valid for "${entry.tool.name}".`, {
      errors: crossErrors,
    });
  }
  for (const [index, input] of received.inputs.entries()) {
    // An imported input's type is known only once the worker has fetched and sniffed it.
    if (input.source !== 'url' && !entry.tool.inputs.accepts.includes(input.contentType as never))
      throw unsupportedContent(entry.tool.inputs.accepts, index);
  }
  const chain = [{ tool: entry.tool, options }, ...(spec.nextSteps ?? []).map((s) => stepOf(catalog, s))];
  checkLeastOutput(chain, plan);
  const { metadata, nextSteps, recipe, recipeRef } = spec;
  const { inputs, sha256, uploadTakes } = received;
  const transfers = TransferParts.joined(spec.transfers, received.imports);
  return {
    entry,
    options,
    metadata,
    inputs,
    sha256,
    ...(nextSteps ? { nextSteps } : {}),
    ...(recipe && recipeRef !== undefined ? { recipe, recipeRef } : {}),
    transfers: transfers.result(),
    uploadTakes,
    transfersFingerprint: transfers.fingerprint(),
  };
}

/** A later step as its tool: the steps part was checked against the catalogue when it was read. */
function stepOf(catalog: ToolCatalog, step: JobStep) {
  const entry = catalog.get(step.tool);
  if (!entry) throw new QuireError('unknown_tool', `No tool is named "${step.tool}".`);
  return { tool: entry.tool, options: step.options };
}
