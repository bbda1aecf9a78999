// A tool's options schema (GET /api/v1/tools) as command-line flags: `--level high`, `--grayscale`,
// `--pages-per-file '[1,2]'`; the help line of each says its type, values and default. Also the
// `--steps 'rotate angle=90 | compress level=high'` syntax, typed by the same schemas.
import { Option } from 'commander';
import type { Tool } from '../resources.js';
import { UsageError } from './exit-codes.js';

interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  anyOf?: PropertySchema[];
  oneOf?: PropertySchema[];
  const?: unknown;
}

/** quirectl's own flags on every tool command; an option of the same name gets `--tool-` before it. */
const RESERVED = new Set(['output', 'options', 'concurrency', 'json', 'help', 'steps']);

export function flagName(property: string): string {
  const kebab = property.replaceAll('_', '-');
  return RESERVED.has(kebab) ? `tool-${kebab}` : kebab;
}

function properties(tool: Tool): Record<string, PropertySchema> {
  return (tool.options_schema as { properties?: Record<string, PropertySchema> }).properties ?? {};
}

/** The allowed values: `enum`, or a union of `const`s (how TypeBox writes a literal union). */
function valuesOf(schema: PropertySchema): unknown[] | undefined {
  if (schema.enum) return schema.enum;
  const members = schema.anyOf ?? schema.oneOf;
  return members?.every((m) => 'const' in m) ? members.map((m) => m.const) : undefined;
}

function typeOf(schema: PropertySchema): string {
  const values = valuesOf(schema);
  if (values) return values.every((v) => typeof v === 'number') ? 'integer' : 'string';
  const type = Array.isArray(schema.type) ? schema.type.join('|') : schema.type;
  if (type) return type;
  const members = schema.anyOf ?? schema.oneOf;
  return members ? members.map(typeOf).join('|') : 'json';
}

/** A flag's text as the schema's type: numbers parsed, objects and arrays as JSON, values checked. */
export function coerce(name: string, schema: PropertySchema | undefined, text: string): unknown {
  const type = schema ? typeOf(schema) : 'json';
  let value: unknown = text;
  if (type === 'integer' || type === 'number') {
    value = Number(text);
    if (!Number.isFinite(value))
      throw new UsageError(`--${flagName(name)} takes a number, not ${JSON.stringify(text)}`);
  } else if (type === 'boolean') value = text !== 'false';
  else if (type !== 'string') {
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
  }
  const values = schema ? valuesOf(schema) : undefined;
  if (values && !values.includes(value))
    throw new UsageError(
      `--${flagName(name)} must be one of ${values.join(', ')}, not ${JSON.stringify(text)}`,
    );
  return value;
}

/** One commander Option per property, with type, values and default in its help line. */
export function optionsOf(tool: Tool): Option[] {
  return Object.entries(properties(tool)).flatMap(([name, schema]) => {
    const type = typeOf(schema);
    const facts = [
      type,
      valuesOf(schema) ? `one of ${valuesOf(schema)?.join(' | ')}` : '',
      schema.default === undefined ? '' : `default ${JSON.stringify(schema.default)}`,
    ];
    const summary = [schema.description?.split('\n')[0], `(${facts.filter(Boolean).join(', ')})`]
      .filter(Boolean)
      .join(' ');
    if (type === 'boolean') {
      const on = new Option(`--${flagName(name)}`, summary);
      const off = new Option(`--no-${flagName(name)}`, `turn ${flagName(name)} off`);
      return [on, off];
    }
    // Not commander's `choices()`: it replaces the parser, and an integer enum (rotate's angle) must
    // reach the server as a number.
    return [
      new Option(`--${flagName(name)} <${type}>`, summary).argParser((v: string) => coerce(name, schema, v)),
    ];
  });
}

/** The options object from parsed flags (commander camelCases them) and `--options JSON`. */
export function collectOptions(
  tool: Tool,
  parsed: Record<string, unknown>,
  json?: string,
): Record<string, unknown> {
  let options: Record<string, unknown> = {};
  if (json !== undefined) {
    try {
      options = JSON.parse(json) as Record<string, unknown>;
    } catch {
      throw new UsageError('--options is not JSON');
    }
  }
  for (const name of Object.keys(properties(tool))) {
    const key = flagName(name).replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (parsed[key] !== undefined) options[name] = parsed[key];
  }
  return options;
}

/** `rotate angle=90 | compress level=high` → steps, each value typed by its tool's schema. */
export function parseSteps(
  text: string,
  catalogue: Tool[],
): Array<{ tool: string; options: Record<string, unknown> }> {
  return text.split('|').map((segment) => {
    const [name, ...pairs] = segment.trim().split(/\s+/);
    const tool = catalogue.find((t) => t.name === name);
    if (!tool) throw new UsageError(`unknown tool in --steps: ${name ?? ''}`);
    const options: Record<string, unknown> = {};
    for (const pair of pairs) {
      const at = pair.indexOf('=');
      if (at < 1) throw new UsageError(`--steps: expected option=value, got ${JSON.stringify(pair)}`);
      const key = pair.slice(0, at).replaceAll('-', '_');
      options[key] = coerce(key, properties(tool)[key], pair.slice(at + 1));
    }
    return { tool: tool.name, options };
  });
}
