// The tool catalogue of one server: definitions with options built for its engines, compiled option
// validators and engine availability.
// GET /tools, request validation and the OpenAPI document all read from this one object.
import { type TObject, Type } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { EngineStatus } from '../../engines/types.js';
import type { FieldError } from '../../errors/quire-error.js';
import { INPUT_PASSWORD_OPTION } from './inputs.js';
import { PAGE_SELECTION_PATTERN, pageSelectionMistake } from './page-selection.js';
import type { AnyToolDefinition, PublishedTool } from './types.js';

export interface CatalogEntry {
  tool: PublishedTool;
  available: boolean;
  reason?: string;
}

export type OptionsCheck =
  | { ok: true; options: Record<string, unknown> }
  | { ok: false; errors: FieldError[] };

export class ToolCatalog {
  private readonly entries = new Map<string, CatalogEntry>();
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(tools: readonly AnyToolDefinition[], engines: readonly EngineStatus[]) {
    // useDefaults fills documented defaults so a job records the options it really ran with.
    const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, coerceTypes: false });
    const byName = new Map(engines.map((e) => [e.name, e]));
    for (const definition of tools) {
      const tool = publish(definition, engines);
      const missing = tool.engines.filter((name) => byName.get(name)?.available !== true);
      const entry: CatalogEntry = { tool, available: missing.length === 0 };
      if (missing.length > 0) entry.reason = `Engine not installed: ${missing.join(', ')}`;
      this.entries.set(tool.name, entry);
      this.validators.set(tool.name, ajv.compile(tool.options));
    }
  }

  list(): CatalogEntry[] {
    return [...this.entries.values()];
  }

  get(name: string): CatalogEntry | undefined {
    return this.entries.get(name);
  }

  /** Validates (and fills defaults into a copy of) `raw` against the tool's published schema. */
  checkOptions(name: string, raw: unknown): OptionsCheck {
    const validate = this.validators.get(name);
    if (!validate) throw new Error(`unknown tool ${name}`);
    const options = structuredClone(raw ?? {});
    if (validate(options)) return { ok: true, options: options as Record<string, unknown> };
    return { ok: false, errors: (validate.errors ?? []).map((error) => toFieldError(error, options)) };
  }
}

function publish(tool: AnyToolDefinition, engines: readonly EngineStatus[]): PublishedTool {
  const published = typeof tool.options === 'function' ? { ...tool, options: tool.options(engines) } : tool;
  return markSecrets(withInputPassword(published));
}

/**
 * Secret options carry JSON Schema's `writeOnly` (sent, never read back: views redact them), so a
 * client generated from the schema (the web app's forms) can hide them as it does passwords.
 */
function markSecrets(tool: PublishedTool): PublishedTool {
  const secrets = tool.secretOptions ?? [];
  const properties = tool.options.properties as Record<string, TObject['properties'][string]>;
  if (!secrets.some((name) => properties[name] !== undefined)) return tool;
  const marked = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [
      name,
      secrets.includes(name) ? { ...schema, writeOnly: true } : schema,
    ]),
  );
  return { ...tool, options: { ...tool.options, properties: marked } as TObject };
}

/** The input password, as unlock's: no line breaks (qpdf reads the password file's first line). */
const INPUT_PASSWORD_SCHEMA = Type.String({
  maxLength: 1024,
  pattern: '^[^\\r\\n]*$',
  description:
    'The password of an encrypted input PDF; the runner opens and decrypts the input with it. Secret: redacted in every view.',
});

/**
 * Every tool the runner opens PDFs for accepts the input's password (tools/framework/inputs.ts), declared
 * here once rather than in each tool; a tool with its own password option (unlock) keeps that.
 */
function withInputPassword(tool: PublishedTool): PublishedTool {
  if (tool.inputs.opens !== 'pdf' || tool.inputs.passwordOption !== undefined) return tool;
  const options = {
    ...tool.options,
    properties: { ...tool.options.properties, [INPUT_PASSWORD_OPTION]: Type.Optional(INPUT_PASSWORD_SCHEMA) },
  } as TObject;
  return { ...tool, options, secretOptions: [...(tool.secretOptions ?? []), INPUT_PASSWORD_OPTION] };
}

function toFieldError(error: ErrorObject, options: unknown): FieldError {
  const params = error.params as Record<string, unknown>;
  let pointer = `/options${error.instancePath}`;
  let detail = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties') {
    pointer += `/${escapePointer(String(params.additionalProperty))}`;
    detail = 'is not a known option';
  } else if (error.keyword === 'required') {
    pointer += `/${escapePointer(String(params.missingProperty))}`;
    detail = 'is required';
  } else if (error.keyword === 'enum') {
    detail = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  } else if (error.keyword === 'pattern') {
    // Ajv's message quotes the pattern itself; say what is wrong instead.
    const value = valueAt(options, error.instancePath);
    detail =
      params.pattern === PAGE_SELECTION_PATTERN && typeof value === 'string'
        ? pageSelectionMistake(value)
        : 'is not in the form the option’s description gives';
  }
  return { pointer, detail };
}

/** The value at a JSON pointer (Ajv's instancePath) inside `root`. */
function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

function escapePointer(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}
