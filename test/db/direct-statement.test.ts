// rowsOf: a statement run straight on the driver answers what Kysely would, and never reads inside
// someone else's transaction: on SQLite a read that arrives while a transaction holds the one
// connection waits for it and sees only what was committed; a transaction's own reads see its writes.
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { rowsOf } from '../../src/db/direct-statement.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';

const count = CompiledQuery.raw('select count(*) as n from direct_probe', []) as CompiledQuery<{ n: number | string }>;
const counted = async (rows: Promise<{ n: number | string }[]>): Promise<number> => Number((await rows)[0]!.n);

eachDatabase('rowsOf answers as Kysely does, and reads only committed rows outside a transaction', async (t) => {
  const db = t.ctx.db;
  const tree = await createTree(t);
  const page = db.selectFrom('nodes').select(['id', 'name', 'path']).where('account_id', '=', tree.accountId).orderBy('path').compile();
  assert.deepEqual(await rowsOf(db, page), await db.executeQuery(page).then((r) => r.rows));

  await sql`create table direct_probe (x integer)`.execute(db);
  let insideRead: Promise<number> | null = null;
  let outsideRead: Promise<number> | null = null;
  let outsideDone = false;
  await assert.rejects(db.transaction().execute(async (trx) => {
    await trx.insertInto('direct_probe' as never).values({ x: 1 } as never).execute();
    insideRead = counted(rowsOf(trx, count));
    outsideRead = counted(rowsOf(db, count));
    void outsideRead.then(() => {
      outsideDone = true;
    });
    assert.equal(await insideRead, 1, 'the transaction reads its own write');
    // Give a read that ran at once time to finish: it must not have read the uncommitted row.
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (t.dialect === 'sqlite') assert.equal(outsideDone, false, 'on SQLite the read waits for the transaction holding the connection');
    throw new Error('roll back');
  }), /roll back/);
  assert.equal(await outsideRead!, 0, 'the rolled-back row was never read outside the transaction');
  assert.equal(await counted(rowsOf(db, count)), 0);
});
