// SQLite statements read their rows as arrays and make them into objects with a function written for
// their columns (src/db/statement-cache.ts): the rows must be what better-sqlite3 itself makes, also
// after another connection has changed the table under a cached statement.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { withStatementCache } from '../../src/db/statement-cache.ts';

const STATEMENT = `select ? as "a""b", 2 as "__proto__", 3 as x, 4 as x, null as "nothing", 'é' as "é", value as n
  from json_each(?) order by value`;

/** A database file, a connection with the cache, and a second connection (another process's, say). */
function twoConnections(): { cached: ReturnType<typeof withStatementCache>; plain: SQLite.Database; other: SQLite.Database; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'repute-statements-'));
  const file = join(dir, 'cache.db');
  const plain = new SQLite(file);
  plain.pragma('journal_mode = WAL');
  const other = new SQLite(file);
  const cached = withStatementCache(plain);
  return { cached, plain, other, done: () => { other.close(); cached.close(); rmSync(dir, { recursive: true, force: true }); } };
}

test('a cached statement\'s rows are the objects better-sqlite3 makes: odd names, a repeated name, nulls, every row (and "__proto__" kept)', () => {
  const { cached, plain, done } = twoConnections();
  try {
    const own = plain.prepare(STATEMENT).all(1, '[3, 1, 2]') as Record<string, unknown>[];
    // Twice: the first run makes the row function, the second reuses it.
    for (let run = 0; run < 2; run++) {
      const rows = cached.prepare(STATEMENT).all([1, '[3, 1, 2]']) as Record<string, unknown>[];
      assert.equal(rows.length, 3);
      for (const [i, row] of rows.entries()) {
        assert.equal(Object.getPrototypeOf(row), Object.prototype);
        // better-sqlite3 drops a column named "__proto__" (it sets the prototype instead); ours keeps it.
        assert.deepEqual(Object.entries(row).filter(([name]) => name !== '__proto__'), Object.entries(own[i]!));
        assert.equal(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, 2);
        assert.equal(row.x, 4, 'the later of two columns of one name wins');
      }
    }
  } finally {
    done();
  }
});

test('a cached `select *` follows the table when another connection adds a column or rebuilds it in another column order', () => {
  const { cached, other, done } = twoConnections();
  try {
    other.exec(`create table guests (id text, first_name text, last_name text); insert into guests values ('g1', 'Ada', 'Lovelace')`);
    const select = 'select * from guests';
    assert.deepEqual(cached.prepare(select).all([]), [{ id: 'g1', first_name: 'Ada', last_name: 'Lovelace' }]);

    other.exec(`alter table guests add column email text; update guests set email = 'ada@example.com'`);
    assert.deepEqual(cached.prepare(select).all([]), [{ id: 'g1', first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' }]);

    // The same number of columns, in another order: only their names tell the values apart.
    other.exec(`create table guests_new (id text, email text, last_name text, first_name text);
      insert into guests_new select id, email, last_name, first_name from guests;
      drop table guests; alter table guests_new rename to guests`);
    const rows = cached.prepare(select).all([]) as Record<string, unknown>[];
    assert.deepEqual(rows, [{ id: 'g1', email: 'ada@example.com', last_name: 'Lovelace', first_name: 'Ada' }]);
    assert.deepEqual(cached.prepare(select).all([]), rows, 'and again, with the row function made for the new order');
  } finally {
    done();
  }
});
