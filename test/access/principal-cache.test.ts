// PrincipalCache: concurrent requests with one key share a single load; clear() forgets; the
// account's node count comes with a principal whose subtree may use either list shape.
import assert from 'node:assert/strict';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { subtreeScope } from '../../src/access/principal.ts';
import { principalCache } from '../../src/modules/keys/service.ts';
import type { DB } from '../../src/db/schema.ts';
import { eachDatabase } from '../support/each-database.ts';
import { createKey, createTree } from '../support/factories.ts';

eachDatabase('concurrent resolves of one key run one load; clear() makes the next resolve load again', async (t) => {
  const tree = await createTree(t);
  const key = await createKey(t, tree.accountId, tree.regions[0], ['reviews:read']);
  let keyLookups = 0;
  const database = t.ctx.database;
  // A second Kysely over the same connection(s) that counts key lookups; never destroyed (it would close them).
  const db = new Kysely<DB>({
    dialect: database.dialect === 'sqlite' ? new SqliteDialect({ database: database.sqlite }) : new PostgresDialect({ pool: database.pool }),
    log: (event) => {
      if (event.level === 'query' && event.query.sql.includes('"api_keys"')) keyLookups++;
    },
  });
  const cache = principalCache(db);

  const principals = await Promise.all(Array.from({ length: 20 }, () => cache.resolve(key)));
  assert.equal(keyLookups, 1);
  assert.ok(principals.every((p) => p === principals[0]));
  const principal = principals[0]!;
  assert.equal(principal.nodeId, tree.regions[0]);
  assert.deepEqual(new Set(principal.subtree), new Set([tree.regions[0], tree.properties[0], tree.properties[1]]));
  // A region of 3 nodes in an account of 6 may take either list shape, so the node count is known.
  assert.equal(subtreeScope(principal).accountNodes, 6);

  await cache.resolve(key);
  assert.equal(keyLookups, 1);
  cache.clear();
  await cache.resolve(key);
  assert.equal(keyLookups, 2);

  assert.equal(await cache.resolve(`rpt_${'x'.repeat(43)}`), null);
});
