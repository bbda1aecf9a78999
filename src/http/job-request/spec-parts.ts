// The spec's text parts of a job or batch request (docs/api.md §2): `tool`, `options`, `metadata`
// and `steps`, each read once and checked as it arrives, so bad options are refused before any file
// is stored.
import { QuireError } from '../../errors/quire-error.js';
import type { ToolCatalog } from '../../tools/framework/catalog.js';
import type { SpecSoFar } from './received.js';
import { conflictingForm, conflictsWithRecipe } from './recipe-part.js';
import { readStepsPart } from './steps-part.js';
import { boundedObject, type FieldValue, parseMetadata, TEXT_PARTS, toolName } from './text-parts.js';

export function readSpecPart(name: string, value: FieldValue, spec: SpecSoFar, catalog: ToolCatalog): void {
  if (!TEXT_PARTS.includes(name)) {
    throw new QuireError(
      'invalid_request',
      `Unknown form field "${name}"; expected tool, options (or steps), metadata and file parts.`,
      {
        errors: [{ field: name, detail: 'is not a known part' }],
      },
    );
  }
  if (spec.seen.has(name)) {
    throw new QuireError('invalid_request', `The "${name}" part appears twice.`, {
      errors: [{ field: name, detail: 'appears twice' }],
    });
  }
  if (conflictsWithRecipe(name, spec.seen)) throw conflictingForm(name);
  spec.seen.add(name);
  if (name === 'steps' || (spec.seen.has('steps') && (name === 'tool' || name === 'options'))) {
    readStepsPart(name, value, spec, catalog);
    return;
  }
  if (name === 'tool') {
    const entry = catalog.get(toolName(value));
    if (!entry)
      throw new QuireError('unknown_tool', 'No tool has this name; GET /api/v1/tools lists them.', {
        errors: [{ field: 'tool', detail: 'is not a known tool' }],
      });
    if (!entry.available)
      throw new QuireError(
        'tool_unavailable',
        `This tool is not available: ${entry.reason ?? 'engine missing'}.`,
      );
    spec.entry = entry;
  } else if (name === 'options') {
    spec.rawOptions = boundedObject(value, 'options', 'invalid_options');
  } else {
    spec.metadata = parseMetadata(value);
  }
  // Validate options as soon as both are known, so bad options are refused before any file is stored.
  if (spec.entry && spec.seen.has('options') && spec.options === undefined) {
    spec.options = checkOptions(spec, catalog);
  }
}

/** The options sent (or `{}`) against the tool's schema, with its defaults filled in. */
export function checkOptions(spec: SpecSoFar, catalog: ToolCatalog): Record<string, unknown> {
  const entry = spec.entry!;
  const result = catalog.checkOptions(entry.tool.name, spec.rawOptions ?? {});
  if (!result.ok)
    throw new QuireError('invalid_options', `The options are not valid for "${entry.tool.name}".`, {
      errors: result.errors,
    });
  return result.options;
}
