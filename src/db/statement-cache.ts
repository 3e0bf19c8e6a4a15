// better-sqlite3 as Kysely sees it: a bounded cache of prepared statements, rows made by a function
// written for their columns, and immediate transactions.
// Kysely's SQLite driver prepares every statement afresh (tens of µs for a short query, hundreds for a long page
// query); reusing them is safe because the driver runs one statement at a time on its single
// connection (a stream holds the connection until it ends).
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { type RowMaker, rowMaker, rowsAsObjects } from './row-maker.ts';

export function withStatementCache(sqlite: SQLite.Database, max = 500): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  const schemaVersion = sqlite.prepare('pragma schema_version').pluck();
  return {
    prepare(text) {
      // Kysely opens every transaction with a deferred `begin`. Ours all write, and a deferred one that
      // read first and then writes gets SQLITE_BUSY at once, without busy_timeout's wait, when another
      // connection (a server beside `repute import`) wrote in between: take the write lock up front.
      const sql = text === 'begin' ? 'begin immediate' : text;
      let statement = cache.get(sql);
      if (statement === undefined) {
        statement = cachedStatement(sqlite, sql, () => schemaVersion.get() as number);
        // Oldest first: a Map iterates in insertion order. Dynamic SQL (IN lists of varying length)
        // must not grow the cache without bound.
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
    close() {
      cache.clear();
      sqlite.close();
    },
  };
}

/**
 * A statement that returns rows reads them as arrays (better-sqlite3's raw mode) and makes each into
 * its object with a row maker (src/db/row-maker.ts): 147 instead of 222 µs for a page of 25 reviews.
 *
 * The maker must describe the columns the statement really returned. SQLite compiles a statement
 * again when the schema changed (another process's migration, say), and `select *` may then return
 * other columns, or the same number in another order (a rebuilt table). So the schema version is
 * read before and after each run: when both equal the version the maker was made at, the statement
 * ran as compiled then; otherwise the maker is made again from the columns of the run just done
 * (columns() describes the statement as it last ran, and nothing recompiles it in between). Two
 * reads cost about 5 µs.
 */
function cachedStatement(sqlite: SQLite.Database, sql: string, schemaVersion: () => number): SqliteStatement {
  const prepared = sqlite.prepare(sql);
  if (!prepared.reader) return prepared;
  prepared.raw(true);
  let maker: RowMaker | null = null;
  /** The schema version the maker is known right for; -1 when the last run straddled a change. */
  let madeAt = -1;
  return {
    reader: true,
    all(parameters) {
      const before = schemaVersion();
      const rows = prepared.all(parameters) as unknown[][];
      const after = schemaVersion();
      if (maker === null || before !== madeAt || after !== madeAt) {
        maker = rowMaker(prepared.columns().map((column) => column.name));
        madeAt = before === after ? after : -1;
      }
      return rowsAsObjects(maker, rows);
    },
    run: (parameters) => prepared.run(parameters),
    // Nothing streams on the request path: a stream gets an object-row statement of its own.
    iterate: (parameters) => sqlite.prepare(sql).iterate(parameters),
  };
}
