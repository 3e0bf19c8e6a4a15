// better-sqlite3 as Kysely sees it, with a bounded cache of prepared statements. Kysely's SQLite
// driver prepares every statement afresh (tens of µs for a short query, hundreds for a long page
// query); reusing them is safe because the driver runs one statement at a time on its single
// connection (a stream holds the connection until it ends).
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export function withStatementCache(sqlite: SQLite.Database, max = 500): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    prepare(sql) {
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
