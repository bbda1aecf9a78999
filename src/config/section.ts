// How a setting is declared (its variable, the field it fills, its schema with default and
// description), how a section of settings is read from the environment, and the error naming the variable.
import { type StaticDecode, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface Setting<K extends string = string, S extends TSchema = TSchema> {
  /** The field of the section's values this variable fills. */
  key: K;
  /** Type, bounds, default and description; the README table is rendered from the last two. */
  schema: S;
}

/** Variable name → setting: the one place each variable is named. */
export type Section = Readonly<Record<`QUIRE_${string}`, Setting>>;

/** A section's parsed values, under each setting's field name and with its schema's (decoded) type. */
export type SectionValues<S extends Section> = {
  [V in keyof S as S[V] extends Setting<infer K> ? K : never]: S[V] extends Setting<string, infer T>
    ? StaticDecode<T>
    : never;
};

export function setting<const K extends string, S extends TSchema>(key: K, schema: S): Setting<K, S> {
  return { key, schema };
}

export const int = (min: number, max: number, def: number, description: string) =>
  Type.Integer({ minimum: min, maximum: max, default: def, description });

/** Unset or empty means the default; throws ConfigError naming the variable and its given value. */
export function readSection<S extends Section>(section: S, env: NodeJS.ProcessEnv): SectionValues<S> {
  const values: Record<string, unknown> = {};
  for (const [name, { key, schema }] of Object.entries(section) as [string, Setting][]) {
    const given = env[name];
    const value = given === undefined || given === '' ? schema.default : Value.Convert(schema, given);
    if (!Value.Check(schema, value)) {
      const first = Value.Errors(schema, value).First();
      throw new ConfigError(`${name}=${JSON.stringify(given)} is invalid: ${first?.message ?? 'bad value'}`);
    }
    values[key] = Value.Decode(schema, value);
  }
  return values as SectionValues<S>;
}
