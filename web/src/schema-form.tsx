// A form generated from a tool's option JSON Schema (GET /api/v1/tools): enums as selects, booleans
// as checkboxes, numbers with their bounds, patterned strings (page selections) checked as typed,
// secret options (writeOnly) as password fields, anything richer as JSON. A new tool needs no change.
import { useState } from 'preact/hooks';

export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  title?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  writeOnly?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
}

export type Values = Record<string, unknown>;

const label = (name: string) => name.replaceAll('_', ' ').replace(/^./, (c) => c.toUpperCase());

/** What is wrong with `value` for `schema`, checked in the page before anything is sent. */
export function fieldMistake(schema: Schema, value: unknown, required: boolean): string | undefined {
  if (value === undefined || value === '') return required ? 'is required' : undefined;
  if (typeof value === 'string' && schema.pattern && !new RegExp(schema.pattern).test(value))
    return schema.description?.includes('Syntax:')
      ? `is not valid: ${schema.description.slice(schema.description.indexOf('Syntax:'))}`
      : 'does not have the expected form';
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return `must be at least ${schema.minimum}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `must be at most ${schema.maximum}`;
  }
  return undefined;
}

function kind(schema: Schema): 'enum' | 'boolean' | 'number' | 'string' | 'json' {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (schema.enum) return 'enum';
  if (type === 'boolean') return 'boolean';
  if (type === 'integer' || type === 'number') return 'number';
  if (type === 'string') return 'string';
  return 'json';
}

/** Options to send: only fields the person set, parsed to their schema's types. */
export function optionsFrom(schema: Schema, values: Values): { options: Values; errors: Values } {
  const options: Values = {};
  const errors: Values = {};
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    let value = values[name];
    if (kind(field) === 'json' && typeof value === 'string' && value.trim() !== '') {
      try {
        value = JSON.parse(value);
      } catch {
        errors[name] = 'is not valid JSON';
        continue;
      }
    }
    const mistake = fieldMistake(field, value, schema.required?.includes(name) ?? false);
    if (mistake) errors[name] = mistake;
    else if (value !== undefined && value !== '') options[name] = value;
  }
  return { options, errors };
}

interface FormProps {
  idPrefix: string;
  schema: Schema;
  values: Values;
  errors: Record<string, string | undefined>;
  onChange: (values: Values) => void;
}

export function SchemaForm(props: FormProps) {
  const entries = Object.entries(props.schema.properties ?? {});
  if (entries.length === 0) return <p class="muted">This tool has no options.</p>;
  return (
    <fieldset class="options">
      <legend>Options</legend>
      {entries.map(([name, field]) => (
        <Field
          key={name}
          id={`${props.idPrefix}-${name}`}
          name={name}
          schema={field}
          required={props.schema.required?.includes(name) ?? false}
          value={props.values[name]}
          error={props.errors[name]}
          onChange={(value) => props.onChange({ ...props.values, [name]: value })}
        />
      ))}
    </fieldset>
  );
}

interface FieldProps {
  id: string;
  name: string;
  schema: Schema;
  required: boolean;
  value: unknown;
  error: string | undefined;
  onChange: (value: unknown) => void;
}

function Field({ id, name, schema, required, value, error, onChange }: FieldProps) {
  const [typed, setTyped] = useState<string | undefined>(undefined);
  const inline = typed === undefined ? undefined : fieldMistake(schema, typed, false);
  const shown = error ?? inline;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [schema.description || schema.default !== undefined ? hintId : '', shown ? errorId : '']
    .filter(Boolean)
    .join(' ');
  const common = {
    id,
    name,
    'aria-describedby': describedBy || undefined,
    'aria-invalid': shown ? ('true' as const) : undefined,
    required,
  };
  const k = kind(schema);
  let control: preact.JSX.Element;
  if (k === 'enum') {
    control = (
      <select
        {...common}
        value={value === undefined ? '' : String(value)}
        onChange={(e) => {
          const text = (e.target as HTMLSelectElement).value;
          onChange(text === '' ? undefined : schema.enum?.find((v) => String(v) === text));
        }}
      >
        <option value="">
          {schema.default === undefined ? '(choose)' : `Default (${String(schema.default)})`}
        </option>
        {schema.enum?.map((v) => (
          <option key={String(v)} value={String(v)}>
            {String(v)}
          </option>
        ))}
      </select>
    );
  } else if (k === 'boolean') {
    control = (
      <input
        {...common}
        type="checkbox"
        checked={value === undefined ? schema.default === true : value === true}
        onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
      />
    );
  } else if (k === 'number') {
    control = (
      <input
        {...common}
        type="number"
        min={schema.minimum}
        max={schema.maximum}
        step={schema.type === 'integer' ? 1 : 'any'}
        placeholder={schema.default === undefined ? '' : String(schema.default)}
        value={value === undefined ? '' : String(value)}
        onInput={(e) => {
          const text = (e.target as HTMLInputElement).value;
          onChange(text === '' ? undefined : Number(text));
        }}
      />
    );
  } else if (k === 'string') {
    control = (
      <input
        {...common}
        type={schema.writeOnly ? 'password' : 'text'}
        autoComplete={schema.writeOnly ? 'new-password' : 'off'}
        placeholder={schema.default === undefined ? '' : String(schema.default)}
        value={value === undefined ? '' : String(value)}
        onInput={(e) => {
          const text = (e.target as HTMLInputElement).value;
          setTyped(text);
          onChange(text === '' ? undefined : text);
        }}
      />
    );
  } else {
    control = (
      <textarea
        {...common}
        rows={3}
        placeholder={schema.default === undefined ? 'JSON' : JSON.stringify(schema.default)}
        value={value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value)}
        onInput={(e) => onChange((e.target as HTMLTextAreaElement).value || undefined)}
      />
    );
  }
  return (
    <div class={`field field-${k}`}>
      <label for={id}>
        {schema.title ?? label(name)}
        {required && <span aria-hidden="true"> *</span>}
      </label>
      {control}
      {(schema.description || schema.default !== undefined) && (
        <p id={hintId} class="hint">
          {schema.description}
          {schema.default !== undefined && ` Default: ${JSON.stringify(schema.default)}.`}
        </p>
      )}
      {shown && (
        <p id={errorId} class="error" role="alert">
          {label(name)} {shown}
        </p>
      )}
    </div>
  );
}
