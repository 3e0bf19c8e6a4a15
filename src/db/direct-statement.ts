// One compiled statement run straight on the driver, for the queries every API request runs (a
// page, the scores' sums, a session's row). Through Kysely a statement passes its connection
// provider, its connection lock (SQLite), its plugins and several promise hops on the way in and out:
// about 40 µs of a 240 µs answer (bench/floor.ts, GET /insights/mentions on PostgreSQL). Straight on
// the driver it does what Kysely would have done on the root instance: one statement, committed on
// its own, on a pooled PostgreSQL connection or on SQLite's one connection.
// Only the root instance that connect() opened has a direct runner; a transaction, a connection
// bound with db.connection() or any other Kysely instance (one that logs its queries, say) goes
// through Kysely as before.
import type { CompiledQuery, Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** Runs a statement and resolves with its rows, or returns null when it must go through Kysely instead. */
export type DirectRunner = (sql: string, parameters: readonly unknown[]) => Promise<unknown[]> | unknown[] | null;

const runners = new WeakMap<Kysely<DB>, DirectRunner>();

/** Gives connect()'s root instance its direct runner. */
export function runDirectly(db: Kysely<DB>, runner: DirectRunner): void {
  runners.set(db, runner);
}

/** The rows of a compiled statement: on the driver when `db` is a root instance, else through Kysely. */
export async function rowsOf<R>(db: Kysely<DB>, query: CompiledQuery<R>): Promise<R[]> {
  const rows = runners.get(db)?.(query.sql, query.parameters);
  if (rows != null) return rows as Promise<R[]> | R[];
  return (await db.executeQuery(query)).rows;
}
