// compiledOnce: a query built once per dialect and then only bound answers what the query builder
// would for every argument, keeps the query's own constants, and refuses an argument used inside a value.
import assert from 'node:assert/strict';
import { compiledOnce } from '../../src/db/compiled-once.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createTree } from '../support/factories.ts';

const inRangeOfType = compiledOnce((db, from: string, to: string) =>
  db.selectFrom('nodes').select(['id', 'name']).where('path', '>=', from).where('path', '<', to).where('type', '=', 'property').orderBy('path'));

eachDatabase('compiledOnce binds fresh arguments to the SQL built the first time', async (t) => {
  const tree = await createTree(t);
  const nodes = await t.ctx.db.selectFrom('nodes').selectAll().where('account_id', '=', tree.accountId).execute();
  for (const node of nodes) {
    const built = await t.ctx.db.selectFrom('nodes').select(['id', 'name']).where('path', '>=', node.path).where('path', '<', `${node.path}~`)
      .where('type', '=', 'property').orderBy('path').execute();
    assert.deepEqual(await inRangeOfType(t.ctx.db, node.path, `${node.path}~`), built, node.name);
  }
  assert.ok((await inRangeOfType(t.ctx.db, nodes[0]!.path, `${nodes[0]!.path}~`)).length >= 2, 'the root reaches several properties');

  const derived = compiledOnce((db, path: string) => db.selectFrom('nodes').select('id').where('path', '<', `${path}~`));
  await assert.rejects(derived(t.ctx.db, '/x/'), /used inside a value/);
});
