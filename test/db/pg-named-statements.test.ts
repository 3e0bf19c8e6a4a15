// Named statements on PostgreSQL come back as arrays and are made into objects by a function
// written for their columns (src/db/pg-named-statements.ts): the rows must be what pg itself makes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CompiledQuery } from 'kysely';
import { dialects, freshDatabase, poolOf } from '../support/app.ts';

const STATEMENT = `select $1::int as "a""b", 2 as "__proto__", 3 as x, 4 as x, null::text as "nothing", 'é' as "é", g as n
  from generate_series(1, $2::int) as g order by g`;

for (const dialect of dialects.filter((d) => d === 'postgres')) {
  test('a named statement\'s rows are the objects pg makes: odd names, "__proto__", a repeated name, nulls, every row', async () => {
    const target = await freshDatabase(dialect);
    try {
      const own = (await poolOf(target.database).query(STATEMENT, [1, 3])).rows;
      // Twice: the first run makes the row function, the second reuses it.
      for (let run = 0; run < 2; run++) {
        const named = (await target.database.db.executeQuery(CompiledQuery.raw(STATEMENT, [1, 3]))).rows as Record<string, unknown>[];
        assert.equal(named.length, 3);
        for (const [i, row] of named.entries()) {
          assert.equal(Object.getPrototypeOf(row), Object.prototype);
          assert.deepEqual(Object.entries(row), Object.entries(own[i]));
          assert.equal(Object.hasOwn(row, '__proto__'), true);
          assert.equal(row.x, 4, 'the later of two columns of one name wins');
        }
      }
    } finally {
      await target.drop();
    }
  });

  test('a parameterised text runs as a named statement, prepared once on its connection', async () => {
    const target = await freshDatabase(dialect);
    try {
      await target.database.db.connection().execute(async (connection) => {
        for (let run = 0; run < 3; run++) await connection.executeQuery(CompiledQuery.raw(STATEMENT, [1, 2]));
        const prepared = await connection.executeQuery<{ name: string; statement: string }>(CompiledQuery.raw('select name, statement from pg_prepared_statements'));
        const ours = prepared.rows.filter((r) => r.statement === STATEMENT);
        assert.equal(ours.length, 1, 'one prepared statement for the text, however often it ran');
        assert.match(ours[0]!.name, /^repute_k\d+$/);
      });
    } finally {
      await target.drop();
    }
  });
}
