// Generates invalid options from a tool's published JSON Schema: an unknown field, a wrong type and
// an out-of-range value per property, a malformed page selection, and both/neither of exclusive
// options. Each names the JSON pointer the refusal must carry, where one is certain.

import { PAGE_SELECTION_PATTERN } from '../../src/tools/framework/page-selection.js';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  pattern?: string;
  items?: JsonSchema;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  minProperties?: number;
  examples?: unknown[];
  [key: string]: unknown;
}

export interface CounterExample {
  kind: string;
  options: Record<string, unknown>;
  pointer?: string;
}

type Options = Record<string, unknown>;

/** A value of the wrong JSON type for `schema`, or undefined when the type is not a single one. */
function wrongType(schema: JsonSchema): unknown {
  switch (schema.type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return '12';
    case 'boolean':
      return 'true';
    case 'array':
      return 'not-an-array';
    case 'object':
      return 'not-an-object';
    default:
      return undefined;
  }
}

/** Values outside the schema's bounds, each with the pointer suffix it must be reported at. */
function outOfRange(schema: JsonSchema): [string, unknown, string][] {
  const bad: [string, unknown, string][] = [];
  if (schema.enum) bad.push(['not in enum', schema.type === 'string' ? 'no-such-value' : 45, '']);
  if (schema.minimum !== undefined) bad.push(['below minimum', schema.minimum - 1, '']);
  if (schema.maximum !== undefined) bad.push(['above maximum', schema.maximum + 1, '']);
  if (schema.minLength) bad.push(['too short', '', '']);
  if (schema.maxLength !== undefined) bad.push(['too long', '1'.repeat(schema.maxLength + 1), '']);
  if (schema.pattern === PAGE_SELECTION_PATTERN) bad.push(['bad page range', '1-x,,0', '']);
  if (schema.type === 'array' && schema.minItems) bad.push(['too few items', [], '']);
  if (schema.type === 'array' && schema.items?.pattern === PAGE_SELECTION_PATTERN) {
    bad.push(['bad page range item', ['0'], '/0']);
  }
  if (schema.type === 'object' && schema.additionalProperties === false) {
    bad.push(['unknown nested field', { no_such_flag: true }, '/no_such_flag']);
  }
  return bad;
}

/** Keys that the schema's oneOf/anyOf branches require: the exclusive or alternative options. */
function alternativeKeys(schema: JsonSchema): string[] {
  return [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].flatMap((branch) => branch.required ?? []);
}

export function counterExamples(schema: JsonSchema): CounterExample[] {
  const examples = (schema.examples ?? [{}]) as Options[];
  const base = examples[0] ?? {};
  // A property is varied inside an example that already uses it, so that only it is wrong.
  const exampleWith = (name: string) => examples.find((e) => name in e) ?? base;
  const out: CounterExample[] = [
    { kind: 'unknown field', options: { ...base, not_an_option: true }, pointer: '/options/not_an_option' },
  ];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const pointer = `/options/${name}`;
    const wrong = wrongType(property);
    if (wrong !== undefined) {
      out.push({ kind: `wrong type of ${name}`, options: { ...exampleWith(name), [name]: wrong }, pointer });
    }
    for (const [kind, value, suffix] of outOfRange(property)) {
      out.push({
        kind: `${name} ${kind}`,
        options: { ...exampleWith(name), [name]: value },
        pointer: pointer + suffix,
      });
    }
  }
  const alternatives = [...new Set(alternativeKeys(schema))];
  if (alternatives.length > 0) {
    const neither = Object.fromEntries(Object.entries(base).filter(([k]) => !alternatives.includes(k)));
    out.push({ kind: 'none of the alternative options', options: neither });
  }
  if (schema.oneOf && alternatives.length > 1) {
    const both = Object.assign({}, ...alternatives.map((k) => ({ [k]: exampleWith(k)[k] })));
    out.push({ kind: 'several exclusive options', options: both });
  }
  if (schema.minProperties) out.push({ kind: 'no options at all', options: {} });
  return out;
}
