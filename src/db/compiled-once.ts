// Queries that run on every request with the same shape (a session's row, a node's subtree): Kysely
// builds and compiles them once per dialect, later calls only bind their values. Building and
// compiling a four-table join took ~45 µs of a ~50 µs lookup on SQLite; binding takes none of that.
import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import { isPostgres } from './adapter.ts';
import type { DB } from './schema.ts';
import { rowsOf } from './direct-statement.ts';

interface Template {
  sql: string;
  /** Per parameter: the index of the argument it is, or -1 for a constant of the query itself. */
  slots: number[];
  constants: readonly unknown[];
}

// A slot stands for an argument while the query is built; a NUL never occurs in a real value.
const slot = (i: number) => `\u0000arg ${i}\u0000`;

/**
 * Wraps a query builder whose shape depends on nothing but its string arguments (each used as a
 * value, never to choose clauses): the returned function runs it with fresh arguments without
 * building it again.
 */
export function compiledOnce<A extends string[], O>(build: (db: Kysely<DB>, ...args: A) => Compilable<O>) {
  const templates = new Map<'pg' | 'sqlite', Template>();
  return async (db: Kysely<DB>, ...args: A): Promise<O[]> => {
    const dialect = isPostgres(db) ? 'pg' : 'sqlite';
    let t = templates.get(dialect);
    if (t === undefined) {
      const compiled = build(db, ...(args.map((_, i) => slot(i)) as A)).compile();
      const slots = compiled.parameters.map((p) => (typeof p === 'string' ? args.findIndex((_, i) => p === slot(i)) : -1));
      // An argument used inside a value (`${arg}~`) would be frozen into the template: pass the value itself.
      if (compiled.parameters.some((p, i) => slots[i] === -1 && typeof p === 'string' && p.includes('\u0000arg '))) {
        throw new Error('compiledOnce: an argument is used inside a value; pass the derived value as an argument of its own');
      }
      t = { sql: compiled.sql, slots, constants: compiled.parameters };
      templates.set(dialect, t);
    }
    const { slots, constants } = t;
    const parameters = slots.map((s, i) => (s === -1 ? constants[i] : args[s]));
    return rowsOf(db, CompiledQuery.raw(t.sql, parameters) as CompiledQuery<O>);
  };
}
