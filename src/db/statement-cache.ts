// better-sqlite3 as Kysely sees it: a bounded cache of prepared statements, and immediate transactions.
// Kysely's SQLite driver prepares every statement afresh (tens of µs for a short query, hundreds for a long page
// query); reusing them is safe because the driver runs one statement at a time on its single
// connection (a stream holds the connection until it ends).
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export function withStatementCache(sqlite: SQLite.Database, max = 500): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    prepare(text) {
      // Kysely opens every transaction with a deferred `begin`. Ours all write, and a deferred one that
      // read first and then writes gets SQLITE_BUSY at once, without busy_timeout's wait, when another
      // connection (a server beside `repute import`) wrote in between: take the write lock up front.
      const sql = text === 'begin' ? 'begin immediate' : text;
      let statement = cache.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare(sql);
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
