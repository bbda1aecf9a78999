// Hot statements compiled once per shape and bound per call. Kysely builds and compiles a raw
// template on every call: for the claim, with its outbox tail, tens of microseconds of the worker's
// CPU per claim, as much as PostgreSQL spends running a cheap statement; and a fresh 4 kB text is
// hashed again by the connection's prepared-statement lookup (connection.ts).
import type { CompiledQuery, Kysely, RawBuilder } from 'kysely';
import type { Tables } from '../sql/tables.js';

/** A parameter whose value is given per call, in a statement compiled once. */
class Slot {
  constructor(readonly name: string) {}
}

/** Statement shapes kept per cache; past it (callers with ever-new limits) compile per call. */
const SHAPES = 32;

export type SlotOf<V> = <K extends keyof V & string>(name: K) => V[K];

/**
 * One statement builder's compiled shapes. `build` receives `slot(name)` for every value that
 * changes between calls (it stands in for the value in the template) and the shape, a JSON value
 * that must decide everything else in the statement: a value that is neither a slot nor taken from
 * the shape would be frozen at its first call's value.
 */
export class BoundStatements<S, V extends object, R> {
  private readonly compiled = new Map<string, CompiledQuery<R>>();

  constructor(private readonly build: (slot: SlotOf<V>, shape: S) => RawBuilder<R>) {}

  async execute(db: Kysely<Tables>, shape: S, values: V): Promise<R[]> {
    const key = JSON.stringify(shape);
    let query = this.compiled.get(key);
    if (!query) {
      query = this.build((name) => new Slot(name) as never, shape).compile(db);
      if (this.compiled.size < SHAPES) this.compiled.set(key, query);
    }
    const parameters = query.parameters.map((p) => (p instanceof Slot ? values[p.name as keyof V] : p));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  }
}
