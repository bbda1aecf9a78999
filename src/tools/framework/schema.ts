// Small TypeBox builders shared by the tool option schemas.
import { type SchemaOptions, type TUnsafe, Type } from '@sinclair/typebox';

/**
 * A string enum as JSON Schema `enum`: it reads plainly in the published schema and OpenAPI, and
 * Ajv (which validates requests) reports one clear "must be one of …" error instead of one per value.
 */
export function StringEnum<const T extends readonly [string, ...string[]]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** An integer enum as JSON Schema `enum`, for the same reasons as StringEnum. */
export function IntegerEnum<const T extends readonly [number, ...number[]]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'integer', enum: [...values] });
}
