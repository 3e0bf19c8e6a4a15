// The few SQL expressions that differ between SQLite and PostgreSQL, as text for statements that are
// written once for both (the outbox fan-out, src/events/outbox.ts). connect() picks one per database.
import type SQLite from 'better-sqlite3';
import { newId } from '../lib/ids.ts';

export interface DialectSql {
  /** A new UUIDv7 per row; may use the FROM item `clock` (idClock). */
  readonly newId: string;
  /** A FROM item the newId expression needs (joined once per statement), or ''. */
  readonly idClock: string;
  /** True when the JSON array held as text in `array` has the string `value`. */
  jsonArrayHas(array: string, value: string): string;
  /** The nth (1-based) parameter's placeholder, as text (SQLite's are positional: use them in order). */
  text(n: number): string;
  /** Rows of text (one array per row) as a subquery with these column names, from parameters starting at the nth. */
  rows(columns: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | null>>, first: number): { from: string; params: unknown[] };
}

export const postgresSql: DialectSql = {
  // The statement's millisecond clock (12 hex digits, once per statement) and a random UUID's tail.
  newId: "substr(clock.ts, 1, 8) || '-' || substr(clock.ts, 9, 4) || '-7' || substr(gen_random_uuid()::text, 16)",
  idClock: "(select lpad(to_hex(floor(extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') as ts) clock",
  jsonArrayHas: (array, value) => `${array}::jsonb ? ${value}`,
  text: (n) => `$${n}::text`,
  rows: (columns, rows, first) => ({
    from: `(select * from unnest(${columns.map((_, i) => `$${first + i}::text[]`).join(', ')}) as rows(${columns.join(', ')}))`,
    params: columns.map((_, i) => rows.map((row) => row[i] ?? null)),
  }),
};

/** Registered on each SQLite connection by connect(). */
export const SQLITE_NEW_ID = 'repute_uuid7';

export const sqliteSql: DialectSql = {
  newId: `${SQLITE_NEW_ID}()`,
  idClock: '',
  jsonArrayHas: (array, value) => `exists (select 1 from json_each(${array}) where json_each.value = ${value})`,
  text: () => '?',
  rows: (columns, rows) => ({
    from: `(select ${columns.map((c, i) => `json_extract(value, '$[${i}]') as ${c}`).join(', ')} from json_each(?))`,
    params: [JSON.stringify(rows)],
  }),
};

/** SQLite has no UUID function: this one makes UUIDv7s in JavaScript, as the application does. */
export function registerSqliteFunctions(sqlite: SQLite.Database): void {
  sqlite.function(SQLITE_NEW_ID, { deterministic: false }, () => newId());
}
