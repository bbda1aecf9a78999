// Small TypeBox builders shared by the tool option schemas.
import { type SchemaOptions, type TLiteral, type TUnion, Type } from '@sinclair/typebox';

/**
 * A string enum as a union of literals. (Type.Unsafe with `enum` would read better in OpenAPI,
 * but TypeBox's own Value.Check cannot validate Unsafe kinds, and request validation uses it.)
 */
export function StringEnum<const T extends readonly [string, ...string[]]>(
  values: T,
  options: SchemaOptions = {},
): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );
}
